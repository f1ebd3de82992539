type LoadingProps = { label?: string };

/** Inline "busy" text. Deliberately not role="status", which pages use for run status. */
export const Loading = ({ label = 'Loading…' }: LoadingProps) => (
  <p className="loading" aria-busy="true">
    {label}
  </p>
);
