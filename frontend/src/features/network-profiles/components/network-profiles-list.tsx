import { useEffect, useState } from 'react';
import { useSearchParams } from 'react-router';

import { ErrorAlert } from '@/components/ui/error-alert';
import { InputField, SelectField } from '@/components/ui/form-field';
import { Loading } from '@/components/ui/loading';
import { useDebouncedValue } from '@/hooks/use-debounced-value';

import { useNetworkProfiles, type NetworkProfileFilters } from '../api/get-network-profiles';

import { isKind, KIND_LABELS, KINDS } from './labels';
import { ProfilesTable } from './profiles-table';

/** Long enough not to send a request per keystroke, short enough to feel live. */
const SEARCH_DEBOUNCE_MS = 300;
const ALL = '';

/**
 * The catalogue with a kind filter and a name search, both kept in the URL (`?kind=&search=`)
 * so a filtered list survives going to a profile and back, and can be linked to.
 */
export const NetworkProfilesList = () => {
  const [searchParams, setSearchParams] = useSearchParams();
  const kindParam = searchParams.get('kind') ?? ALL;
  const kind = isKind(kindParam) ? kindParam : ALL;
  const urlSearch = searchParams.get('search') ?? '';
  const [search, setSearch] = useState(urlSearch);
  const debouncedSearch = useDebouncedValue(search.trim(), SEARCH_DEBOUNCE_MS);

  // The URL changed under the box (a link to the bare list, back/forward): follow it.
  const [seenUrlSearch, setSeenUrlSearch] = useState(urlSearch);
  if (urlSearch !== seenUrlSearch) {
    setSeenUrlSearch(urlSearch);
    if (urlSearch !== debouncedSearch) setSearch(urlSearch);
  }

  const setParam = (key: 'kind' | 'search', value: string) =>
    setSearchParams(
      (previous) => {
        const next = new URLSearchParams(previous);
        if (value) next.set(key, value);
        else next.delete(key);
        return next;
      },
      { replace: true },
    );

  // The URL follows the settled search, not every keystroke.
  useEffect(() => {
    if (urlSearch !== debouncedSearch) setParam('search', debouncedSearch);
    // eslint-disable-next-line react-hooks/exhaustive-deps -- only when the settled search changes; setParam reads the latest params itself
  }, [debouncedSearch]);

  // The URL is the one source of truth for what is listed.
  const filters: NetworkProfileFilters = {
    ...(kind === ALL ? {} : { kind }),
    ...(urlSearch ? { search: urlSearch } : {}),
  };
  const profiles = useNetworkProfiles({ filters });
  const filtered = kind !== ALL || urlSearch !== '';

  return (
    <section className="panel" aria-labelledby="network-profiles-heading">
      <h2 id="network-profiles-heading" className="panel-title">
        Catalogue
      </h2>
      <div role="search" className="chart-controls" aria-label="Filter profiles">
        <SelectField
          label="Kind"
          value={kind}
          onChange={(event) => setParam('kind', event.target.value)}
          options={[{ value: ALL, label: 'All kinds' }, ...KINDS.map((k) => ({ value: k, label: KIND_LABELS[k] }))]}
        />
        <InputField
          label="Search by name"
          type="search"
          value={search}
          onChange={(event) => setSearch(event.target.value)}
          placeholder="e.g. TIM.bad or 3G"
        />
      </div>
      {profiles.isPending ? <Loading label="Loading the profiles…" /> : null}
      {profiles.isError ? <ErrorAlert title="The profiles could not be loaded." error={profiles.error} /> : null}
      {profiles.data?.length === 0 ? (
        <p className="empty">
          {filtered
            ? 'No profile matches these filters.'
            : 'No network profiles yet: create one, or load the built-in catalogue on the server (manage.py load_network_profiles).'}
        </p>
      ) : null}
      {profiles.data && profiles.data.length > 0 ? <ProfilesTable profiles={profiles.data} /> : null}
    </section>
  );
};
