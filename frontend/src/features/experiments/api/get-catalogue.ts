import { queryOptions, useQuery } from '@tanstack/react-query';

import { api } from '@/lib/api-client';
import type { QueryConfig } from '@/lib/react-query';
import type { Catalogue } from '@/types/api';

export const CATALOGUE_QUERY_KEY = ['catalogue'] as const;

/** GET /api/catalogue/: the security mechanisms and experiment kinds the backend offers. */
export const getCatalogue = ({ signal }: { signal?: AbortSignal } = {}): Promise<Catalogue> =>
  api.get<Catalogue>('/api/catalogue/', { signal });

export const getCatalogueQueryOptions = () =>
  queryOptions({
    queryKey: CATALOGUE_QUERY_KEY,
    queryFn: ({ signal }) => getCatalogue({ signal }),
    // Fixed by the backend's code: it only changes with a deployment.
    staleTime: Number.POSITIVE_INFINITY,
  });

type UseCatalogueOptions = { queryConfig?: QueryConfig<typeof getCatalogueQueryOptions> };

export const useCatalogue = ({ queryConfig }: UseCatalogueOptions = {}) =>
  useQuery({ ...getCatalogueQueryOptions(), ...queryConfig });
