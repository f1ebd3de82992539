from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ("measurements", "0009_interleaved_mechanism"),
    ]

    operations = [
        migrations.RemoveConstraint(
            model_name="runstatistic",
            name="uniq_run_statistic",
        ),
        migrations.AddField(
            model_name="runstatistic",
            name="mechanism",
            field=models.CharField(blank=True, max_length=40, null=True),
        ),
        migrations.AddConstraint(
            model_name="runstatistic",
            constraint=models.UniqueConstraint(
                fields=("run", "run_device", "mechanism"),
                name="uniq_run_statistic",
                nulls_distinct=False,
            ),
        ),
    ]
