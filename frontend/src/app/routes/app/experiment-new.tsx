import { useNavigate, useSearchParams } from 'react-router';

import { ErrorAlert } from '@/components/ui/error-alert';
import { Loading } from '@/components/ui/loading';
import { paths } from '@/config/paths';
import { useDevices } from '@/features/devices/api/get-devices';
import { useCatalogue } from '@/features/experiments/api/get-catalogue';
import { useExperiment } from '@/features/experiments/api/get-experiment';
import { usePresets } from '@/features/experiments/api/get-presets';
import { hasSeveralRuns } from '@/features/experiments/components/design-axes';
import { valuesFromDesign, type DesignChoices } from '@/features/experiments/components/design-values';
import { ExperimentForm } from '@/features/experiments/components/experiment-form';
import { PresetChooser } from '@/features/experiments/components/preset-chooser';
import { useNetworkProfiles } from '@/features/network-profiles/api/get-network-profiles';

// The route joins the features: experiments imports neither devices nor network-profiles.
// `?from=<id>` clones an experiment, `?preset=<slug>` starts from a paper's design.
const NewExperimentRoute = () => {
  const navigate = useNavigate();
  const [searchParams, setSearchParams] = useSearchParams();
  const from = searchParams.get('from');
  const presetSlug = searchParams.get('preset');
  const devices = useDevices();
  // The form's kinds and mechanisms: it cannot be filled in without them.
  const catalogue = useCatalogue();
  // The network profiles a messaging experiment may use. Waited for, so a choice is not lost
  // to a late list; if they fail, the form still works without shaping.
  const networkProfiles = useNetworkProfiles();
  // Optional: without them the form starts from its defaults.
  const presets = usePresets();
  const source = useExperiment({ experimentId: from ?? '', queryConfig: { enabled: from !== null } });

  const waiting =
    devices.isPending ||
    catalogue.isPending ||
    networkProfiles.isPending ||
    (presetSlug !== null && presets.isPending) ||
    (from !== null && source.isPending);

  const initial = () => {
    if (!devices.data || !catalogue.data) return undefined;
    const choices: DesignChoices = {
      mechanisms: catalogue.data.mechanisms.map((m) => m.name),
      networkProfiles: (networkProfiles.data ?? []).map((p) => p.id),
    };
    if (from !== null && source.data) {
      return valuesFromDesign(source.data, {
        devices: devices.data,
        choices,
        name: `Copy of ${source.data.name}`,
        deviceIds: source.data.device_ids,
      });
    }
    const preset = presets.data?.find((p) => p.slug === presetSlug);
    if (preset) {
      const name = typeof preset.design.name === 'string' ? preset.design.name : preset.title;
      // The preset's words were written for the preset's design: generated again from the design as saved.
      return valuesFromDesign(
        { ...preset.design, preset: preset.slug, description_generated: true },
        { devices: devices.data, choices, name },
      );
    }
    return undefined;
  };

  return (
    <>
      <h1>New experiment</h1>
      {waiting ? <Loading label="Loading the form…" /> : null}
      {devices.isError ? <ErrorAlert error={devices.error} /> : null}
      {catalogue.isError ? <ErrorAlert error={catalogue.error} /> : null}
      {source.isError ? <ErrorAlert error={source.error} title="The experiment to clone could not be loaded." /> : null}
      {networkProfiles.isError ? (
        <ErrorAlert
          error={networkProfiles.error}
          title="The network profiles could not be loaded; experiments run without shaping."
        />
      ) : null}
      {presets.isError ? <ErrorAlert error={presets.error} title="The presets could not be loaded." /> : null}
      {presets.data && presets.data.length > 0 && from === null ? (
        <PresetChooser
          presets={presets.data}
          chosen={presetSlug}
          onChoose={(slug) => setSearchParams(slug ? { preset: slug } : {})}
        />
      ) : null}
      {devices.data && catalogue.data && !waiting ? (
        <ExperimentForm
          // A new preset or clone starts a new form.
          key={from ?? presetSlug ?? 'new'}
          devices={devices.data}
          catalogue={catalogue.data}
          networkProfiles={networkProfiles.data}
          initial={initial()}
          onCreated={(experiment) => void navigate(paths.experiment.getHref(experiment.id))}
          onRunStarted={(run, experiment) =>
            void navigate(hasSeveralRuns(experiment) ? paths.experiment.getHref(experiment.id) : paths.run.getHref(run.id))
          }
        />
      ) : null}
    </>
  );
};

export default NewExperimentRoute;
