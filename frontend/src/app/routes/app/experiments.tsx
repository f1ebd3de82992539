import { useMemo } from 'react';
import { Link, useNavigate, useSearchParams } from 'react-router';

import { ErrorAlert } from '@/components/ui/error-alert';
import { Loading } from '@/components/ui/loading';
import { paths } from '@/config/paths';
import { useDevices } from '@/features/devices/api/get-devices';
import { useCatalogue } from '@/features/experiments/api/get-catalogue';
import { useExperiments, type ExperimentFilters } from '@/features/experiments/api/get-experiments';
import { DesignImport } from '@/features/experiments/components/design-import';
import { ExperimentsFilters, filtersFromSearch } from '@/features/experiments/components/experiments-filters';
import { ExperimentsList } from '@/features/experiments/components/experiments-list';
import { useDebouncedValue } from '@/hooks/use-debounced-value';

// Typing in the search box asks the server once the user pauses.
const SEARCH_DEBOUNCE_MS = 300;

// The filters live in the URL (?q=…&protocol=…), so a filtered list can be bookmarked and shared.
const ExperimentsRoute = () => {
  const navigate = useNavigate();
  const [searchParams, setSearchParams] = useSearchParams();
  const filters = useMemo(() => filtersFromSearch(searchParams), [searchParams]);
  const query = useDebouncedValue(filters, SEARCH_DEBOUNCE_MS);
  const experiments = useExperiments({ filters: query });
  // Only for the kinds' labels and the filters' choices; the list works without them.
  const catalogue = useCatalogue();
  const devices = useDevices();
  const setFilters = (next: ExperimentFilters) =>
    setSearchParams(Object.fromEntries(Object.entries(next).filter(([, value]) => value)), { replace: true });

  return (
    <>
      <div className="page-head">
        <h1>Experiments</h1>
        <DesignImport onImported={(experiment) => void navigate(paths.experiment.getHref(experiment.id))} />
        <Link to={paths.newExperiment.getHref()} className="button button-primary">
          New experiment
        </Link>
      </div>
      <ExperimentsFilters
        filters={filters}
        onChange={setFilters}
        catalogue={catalogue.data}
        devices={devices.data ?? []}
      />
      {experiments.isPending ? <Loading /> : null}
      {experiments.isError ? <ErrorAlert error={experiments.error} /> : null}
      {experiments.data ? (
        <ExperimentsList
          experiments={experiments.data}
          filtered={Object.keys(filters).length > 0}
          catalogue={catalogue.data}
        />
      ) : null}
    </>
  );
};

export default ExperimentsRoute;
