from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('clubs', '0001_initial'),
    ]

    operations = [
        migrations.AddField(
            model_name='member',
            name='left',
            field=models.BooleanField(default=False),
        ),
    ]
