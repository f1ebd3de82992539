"""Idempotency keys are unique per device part of a run, not globally.

A global key let a device of another workspace post a victim's key first and make the
victim's real chunk answer "duplicate" without being stored. Every existing row already
satisfies the narrower constraint, which is added before the global one is dropped so the
table is never without one.
"""

from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("experiments", "0010_one_way"),
        ("measurements", "0007_runstatistic_medians"),
    ]

    operations = [
        migrations.AddConstraint(
            model_name="uploadchunk",
            constraint=models.UniqueConstraint(
                fields=("run_device", "idempotency_key"), name="uniq_chunk_device_key"
            ),
        ),
        migrations.AlterField(
            model_name="uploadchunk",
            name="idempotency_key",
            field=models.CharField(max_length=200),
        ),
    ]
