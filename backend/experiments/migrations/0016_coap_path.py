from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('experiments', '0015_crypto_library'),
    ]

    operations = [
        migrations.AddField(
            model_name='experiment',
            name='coap_path',
            field=models.CharField(blank=True, default='', max_length=300),
        ),
    ]
