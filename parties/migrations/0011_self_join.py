# Guests who add themselves: a party may allow it (self_join), and each guest waits as a
# WaitingGuest until the host seats them, merges them with a player, or turns them away.

import django.db.models.deletion
from django.db import migrations, models


class Migration(migrations.Migration):

    dependencies = [
        ('parties', '0010_words_kept_as_messages'),
    ]

    operations = [
        migrations.AddField(
            model_name='party',
            name='self_join',
            field=models.BooleanField(default=False),
        ),
        migrations.CreateModel(
            name='WaitingGuest',
            fields=[
                ('id', models.BigAutoField(auto_created=True, primary_key=True, serialize=False, verbose_name='ID')),
                ('name', models.CharField(help_text='as parties.party_limits tidied it', max_length=40)),
                ('status', models.CharField(choices=[('waiting', 'Waiting to be seated'), ('seated', 'Seated'), ('merged', 'Already on the list'), ('turned_away', 'Turned away')], default='waiting', max_length=12)),
                ('secret_hash', models.CharField(max_length=64, unique=True)),
                ('created_at', models.DateTimeField(auto_now_add=True)),
                ('party', models.ForeignKey(on_delete=django.db.models.deletion.CASCADE, related_name='waiting_guests', to='parties.party')),
                ('player', models.ForeignKey(blank=True, null=True, on_delete=django.db.models.deletion.CASCADE, related_name='+', to='parties.player')),
            ],
            options={
                'ordering': ['party', 'created_at', 'id'],
                'constraints': [models.CheckConstraint(condition=models.Q(models.Q(('player__isnull', True), ('status__in', ['waiting', 'turned_away'])), models.Q(('player__isnull', False), ('status__in', ['seated', 'merged'])), _connector='OR'), name='guest_player_matches_status')],
            },
        ),
    ]
