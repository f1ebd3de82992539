type StatusBadgeProps = {
  status: string;
  /** Visible prefix, e.g. "Status: ". */
  prefix?: string;
  role?: 'status';
};

/** Coloured pill for a run status (pending, running, completed, failed, ...). */
export const StatusBadge = ({ status, prefix = '', role }: StatusBadgeProps) => (
  <span className={`badge badge-${status}`} role={role}>
    {prefix}
    {status}
  </span>
);
