import { useId, type ChangeEvent } from 'react';

import { errorMessage } from '@/components/ui/error-alert';
import { isApiError } from '@/lib/api-client';
import type { Experiment } from '@/types/api';

import { DESIGN_SCHEMA_URL, useImportDesignFile } from '../api/design-file';

type DesignImportProps = { onImported: (experiment: Experiment) => void };

/** "Import YAML": a design file becomes an experiment; the server's messages name the bad line or path. */
export const DesignImport = ({ onImported }: DesignImportProps) => {
  const inputId = useId();
  const importFile = useImportDesignFile({ mutationConfig: { onSuccess: onImported } });
  const messages = isApiError(importFile.error) ? Object.values(importFile.error.fieldErrors).flat() : [];

  const onChange = (event: ChangeEvent<HTMLInputElement>) => {
    const file = event.target.files?.[0];
    // The same file may be picked again after fixing it.
    event.target.value = '';
    if (file) importFile.mutate({ file });
  };

  return (
    <div className="design-import">
      <label htmlFor={inputId} className="button">
        Import YAML
      </label>
      <input
        id={inputId}
        type="file"
        accept=".yaml,.yml,application/yaml,text/yaml"
        className="visually-hidden"
        onChange={onChange}
        disabled={importFile.isPending}
      />{' '}
      <a href={DESIGN_SCHEMA_URL} className="muted">
        Design file schema
      </a>
      {importFile.isError ? (
        <div role="alert" className="alert alert-error">
          <strong className="alert-title">The design file could not be imported. </strong>
          {messages.length > 0 ? (
            <ul>
              {messages.map((message) => (
                <li key={message}>{message}</li>
              ))}
            </ul>
          ) : (
            errorMessage(importFile.error)
          )}
        </div>
      ) : null}
    </div>
  );
};
