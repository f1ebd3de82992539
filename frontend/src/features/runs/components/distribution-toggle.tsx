import { RadioOption } from '@/components/ui/form-field';

export type DistributionView = 'histogram' | 'violin';

const VIEWS: readonly (readonly [DistributionView, string])[] = [
  ['histogram', 'Histogram'],
  ['violin', 'Violin'],
];

type DistributionToggleProps = {
  value: DistributionView;
  onChange: (view: DistributionView) => void;
  /** Radio names are per page: two toggles on one page need different names. */
  name: string;
};

/** Histogram or violin: the same distribution drawn two ways. */
export const DistributionToggle = ({ value, onChange, name }: DistributionToggleProps) => (
  <div className="radio-row" role="radiogroup" aria-label="Show the distribution as">
    {VIEWS.map(([view, label]) => (
      <RadioOption key={view} label={label} name={name} checked={value === view} onChange={() => onChange(view)} />
    ))}
  </div>
);
