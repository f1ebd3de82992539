from django.db import migrations, models


class Migration(migrations.Migration):
    dependencies = [
        ("experiments", "0017_target_device"),
    ]

    operations = [
        migrations.AddField(
            model_name="experiment",
            name="description_generated",
            field=models.BooleanField(default=False),
        ),
    ]
