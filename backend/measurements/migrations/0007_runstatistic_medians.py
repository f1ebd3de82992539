"""Medians of the securing times in the run summary, filled in for runs summarized before.

The UPDATE computes, for every stored RunStatistic, what ``run_summarize`` now computes
(per device, and over the run's devices for the row without a device), so summaries made
before this migration show their medians without being recomputed.
"""

from django.db import migrations, models

FILL_MEDIANS = """
UPDATE measurements_runstatistic s
SET secure_median_ns = m.secure,
    unsecure_median_ns = m.unsecure,
    net_secure_median_ns = m.net_secure,
    net_unsecure_median_ns = m.net_unsecure
FROM (
    SELECT rd.run_id,
           r.run_device_id,
           percentile_cont(0.5) WITHIN GROUP (ORDER BY r.secure_ns) AS secure,
           percentile_cont(0.5) WITHIN GROUP (ORDER BY r.unsecure_ns) AS unsecure,
           percentile_cont(0.5) WITHIN GROUP (ORDER BY r.secure_ns - r.floor_secure_ns)
               AS net_secure,
           percentile_cont(0.5) WITHIN GROUP (ORDER BY r.unsecure_ns - r.floor_unsecure_ns)
               AS net_unsecure
    FROM measurements_messagerecord r
    JOIN experiments_rundevice rd ON rd.id = r.run_device_id
    WHERE rd.run_id IN (SELECT run_id FROM measurements_runstatistic)
    GROUP BY GROUPING SETS ((rd.run_id, r.run_device_id), (rd.run_id))
) m
WHERE s.run_id = m.run_id AND s.run_device_id IS NOT DISTINCT FROM m.run_device_id
"""


class Migration(migrations.Migration):
    dependencies = [
        ("measurements", "0006_messagerecord_floor"),
    ]

    operations = [
        migrations.AddField(
            model_name="runstatistic",
            name="secure_median_ns",
            field=models.FloatField(null=True),
        ),
        migrations.AddField(
            model_name="runstatistic",
            name="unsecure_median_ns",
            field=models.FloatField(null=True),
        ),
        migrations.AddField(
            model_name="runstatistic",
            name="net_secure_median_ns",
            field=models.FloatField(null=True),
        ),
        migrations.AddField(
            model_name="runstatistic",
            name="net_unsecure_median_ns",
            field=models.FloatField(null=True),
        ),
        migrations.RunSQL(FILL_MEDIANS, reverse_sql=migrations.RunSQL.noop),
    ]
