"""Load the built-in catalogue (the contract's network-profiles/ package data) with this
migration's models.

Later changes to that data are applied by `manage.py load_network_profiles` (idempotent),
or by a new data migration that calls the same loader.
"""

from django.db import migrations


def load(apps, schema_editor):
    from netprofiles.services import catalogue_load

    catalogue_load(
        table_model=apps.get_model("netprofiles", "DelayTable"),
        profile_model=apps.get_model("netprofiles", "NetworkProfile"),
    )


def unload(apps, schema_editor):
    apps.get_model("netprofiles", "NetworkProfile").objects.filter(workspace__isnull=True).delete()
    apps.get_model("netprofiles", "DelayTable").objects.all().delete()


class Migration(migrations.Migration):
    dependencies = [("netprofiles", "0001_initial")]

    operations = [migrations.RunPython(load, unload)]
