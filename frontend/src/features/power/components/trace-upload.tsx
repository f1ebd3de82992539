import { useId, useRef, useState, type ChangeEvent, type DragEvent, type FormEvent } from 'react';

import { ErrorAlert, errorMessage } from '@/components/ui/error-alert';
import { InputField, SelectField } from '@/components/ui/form-field';
import { isApiError, type UploadProgress } from '@/lib/api-client';
import { formatBytes } from '@/lib/format';
import type { PowerTrace } from '@/types/api';

import {
  uploadPowerTraceInputSchema,
  useUploadPowerTrace,
  type UploadPowerTraceInput,
} from '../api/upload-power-trace';

/** A device a trace can be attached to. */
export type DeviceChoice = { id: string; name: string };

type Field = keyof UploadPowerTraceInput;
type FieldErrorMap = Partial<Record<Field, string[]>>;
const FIELDS: readonly Field[] = ['file', 'name', 'device', 'run', 'baseline_name'];
const isField = (key: string): key is Field => (FIELDS as readonly string[]).includes(key);

/** The file's own problem (too large), checked as soon as it is chosen; null when it is fine. */
const fileProblem = (file: File): string | null => {
  const result = uploadPowerTraceInputSchema.shape.file.safeParse(file);
  return result.success ? null : (result.error.issues[0]?.message ?? 'This file cannot be uploaded.');
};

const percentOf = ({ loaded, total }: UploadProgress) => (total > 0 ? Math.round((loaded / total) * 100) : 0);

type TraceUploadProps = {
  /** Devices to offer (the workspace's, or a run's). */
  devices: readonly DeviceChoice[];
  /** Attach the trace to this run; the baseline field is then not offered. */
  runId?: string;
  onUploaded: (trace: PowerTrace) => void;
};

/** Drop zone and file picker, optional details, and a real upload progress bar. */
export const TraceUpload = ({ devices, runId, onUploaded }: TraceUploadProps) => {
  const ids = useId();
  const fileErrorId = `${ids}-file-error`;
  const [file, setFile] = useState<File | null>(null);
  const [name, setName] = useState('');
  const [device, setDevice] = useState('');
  const [baselineName, setBaselineName] = useState('');
  const [dragging, setDragging] = useState(false);
  const [progress, setProgress] = useState<UploadProgress | null>(null);
  const [fieldErrors, setFieldErrors] = useState<FieldErrorMap>({});
  const [formError, setFormError] = useState<string | null>(null);
  const [notice, setNotice] = useState<string | null>(null);
  const abortRef = useRef<AbortController | null>(null);
  const upload = useUploadPowerTrace();
  const busy = upload.isPending;

  const clearError = (field: Field) => setFieldErrors(({ [field]: _cleared, ...rest }) => rest);

  const chooseFile = (chosen: File | undefined) => {
    if (!chosen) return;
    setFile(chosen);
    setNotice(null);
    setFormError(null);
    const problem = fileProblem(chosen);
    setFieldErrors((prev) => ({ ...prev, file: problem ? [problem] : [] }));
  };

  const onDrop = (event: DragEvent<HTMLDivElement>) => {
    event.preventDefault();
    setDragging(false);
    if (!busy) chooseFile(event.dataTransfer.files[0]);
  };

  const handleSubmit = async (event: FormEvent<HTMLFormElement>) => {
    event.preventDefault();
    setFormError(null);
    setNotice(null);
    const parsed = uploadPowerTraceInputSchema.safeParse({
      file,
      name,
      device,
      run: runId,
      baseline_name: runId ? undefined : baselineName,
    });
    if (!parsed.success) {
      const errors: FieldErrorMap = {};
      for (const issue of parsed.error.issues) {
        const key = String(issue.path[0]);
        if (isField(key)) errors[key] = [...(errors[key] ?? []), issue.message];
      }
      setFieldErrors(errors);
      return;
    }
    setFieldErrors({});
    const controller = new AbortController();
    abortRef.current = controller;
    setProgress({ loaded: 0, total: parsed.data.file.size });
    try {
      const trace = await upload.mutateAsync({
        input: parsed.data,
        onProgress: setProgress,
        signal: controller.signal,
      });
      onUploaded(trace);
    } catch (error) {
      if (error instanceof DOMException && error.name === 'AbortError') {
        setNotice('Upload cancelled.');
      } else if (isApiError(error) && Object.keys(error.fieldErrors).length > 0) {
        const byField: FieldErrorMap = {};
        const other: string[] = [];
        for (const [key, messages] of Object.entries(error.fieldErrors)) {
          if (isField(key)) byField[key] = messages;
          else other.push(...messages);
        }
        setFieldErrors(byField);
        setFormError([error.message, ...other].join(' '));
      } else {
        setFormError(errorMessage(error));
      }
    } finally {
      abortRef.current = null;
      setProgress(null);
    }
  };

  const fileError = fieldErrors.file?.length ? fieldErrors.file.join(' ') : null;
  const percent = progress ? percentOf(progress) : 0;
  const sent = progress !== null && progress.total > 0 && progress.loaded >= progress.total;

  return (
    <form
      className="form form-wide"
      noValidate
      onSubmit={(event) => void handleSubmit(event)}
      aria-label="Upload a power trace"
    >
      {formError ? <ErrorAlert message={formError} /> : null}
      <div
        className={['dropzone', dragging ? 'dropzone-active' : ''].filter(Boolean).join(' ')}
        onDragOver={(event) => {
          event.preventDefault();
          if (!busy) setDragging(true);
        }}
        onDragLeave={() => setDragging(false)}
        onDrop={onDrop}
      >
        <p className="dropzone-text">Drop a power meter&apos;s file here, or</p>
        <label className="button" htmlFor={`${ids}-file`}>
          Choose a trace file
        </label>
        <input
          id={`${ids}-file`}
          type="file"
          className="visually-hidden"
          accept=".csv,.txt,.tsv,text/csv,text/plain"
          disabled={busy}
          aria-invalid={fileError ? true : undefined}
          aria-describedby={fileError ? fileErrorId : undefined}
          onChange={(event: ChangeEvent<HTMLInputElement>) => {
            chooseFile(event.target.files?.[0]);
            // Choosing the same file again after a failure should fire onChange again.
            event.target.value = '';
          }}
        />
        {file ? (
          <p className="dropzone-file">
            <strong>{file.name}</strong> <span className="muted">({formatBytes(file.size)})</span>
          </p>
        ) : (
          <p className="muted dropzone-file">CSV or text exports of USB meters and power monitors, up to 200 MiB.</p>
        )}
        {fileError ? (
          <p id={fileErrorId} className="field-error">
            {fileError}
          </p>
        ) : null}
      </div>

      <div className="field-row">
        <InputField
          label="Name (optional)"
          type="text"
          value={name}
          onChange={(event) => {
            setName(event.target.value);
            clearError('name');
          }}
          error={fieldErrors.name}
          disabled={busy}
        />
        <SelectField
          label="Device"
          value={device}
          onChange={(event) => {
            setDevice(event.target.value);
            clearError('device');
          }}
          options={[{ value: '', label: 'No device' }, ...devices.map((d) => ({ value: d.id, label: d.name }))]}
          error={fieldErrors.device}
          disabled={busy}
        />
        {runId ? null : (
          <InputField
            label="Baseline name (optional)"
            type="text"
            value={baselineName}
            onChange={(event) => {
              setBaselineName(event.target.value);
              clearError('baseline_name');
            }}
            error={fieldErrors.baseline_name}
            hint="Only for a baseline (the device idle), e.g. “pi3 idle, wifi on”. Figures can subtract it."
            disabled={busy}
          />
        )}
      </div>
      {fieldErrors.run ? <ErrorAlert message={fieldErrors.run.join(' ')} /> : null}

      {progress ? (
        <div className="upload-progress">
          <div
            role="progressbar"
            aria-label="Upload progress"
            aria-valuemin={0}
            aria-valuemax={100}
            aria-valuenow={percent}
            aria-valuetext={`${formatBytes(progress.loaded)} of ${formatBytes(progress.total)} sent`}
            className="progress"
          >
            <div className="progress-bar" style={{ width: `${percent}%` }} />
          </div>
          <p className="progress-text">
            {sent ? 'Uploaded; detecting the format…' : `Uploading… ${percent} %`}
          </p>
        </div>
      ) : null}
      {notice ? <p className="muted">{notice}</p> : null}

      <div className="actions">
        <button type="submit" className="button button-primary" disabled={busy}>
          Upload
        </button>
        {busy ? (
          <button type="button" className="button" onClick={() => abortRef.current?.abort()}>
            Cancel upload
          </button>
        ) : null}
      </div>
    </form>
  );
};
