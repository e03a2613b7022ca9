"""The admin: every table of a party, read through for support and corrections of last resort."""

from django.contrib import admin

from parties import models


class PlayerInline(admin.TabularInline):
    model = models.Player
    extra = 0


@admin.register(models.Party)
class PartyAdmin(admin.ModelAdmin):
    list_display = ["name", "code", "preset", "status", "created_at"]
    list_filter = ["status", "preset"]
    search_fields = ["name", "code"]
    inlines = [PlayerInline]


@admin.register(models.Player)
class PlayerAdmin(admin.ModelAdmin):
    list_display = ["name", "party", "is_ghost", "position"]
    list_filter = ["is_ghost"]
    search_fields = ["name", "party__code"]


@admin.register(models.Round)
class RoundAdmin(admin.ModelAdmin):
    list_display = ["party", "bunco_set", "number", "target", "status"]
    list_filter = ["status"]


@admin.register(models.Seat)
class SeatAdmin(admin.ModelAdmin):
    list_display = ["round", "table", "position", "player"]


@admin.register(models.Roll)
class RollAdmin(admin.ModelAdmin):
    list_display = ["round", "table", "roller", "dice", "called", "phase", "voided_by"]
    list_filter = ["phase"]


@admin.register(models.ScoreSheetLine)
class ScoreSheetLineAdmin(admin.ModelAdmin):
    list_display = ["player", "round", "table", "won", "points", "buncos", "mini_buncos"]


@admin.register(models.AccessLink)
class AccessLinkAdmin(admin.ModelAdmin):
    list_display = ["party", "role", "table", "player", "created_at", "revoked_at"]
    list_filter = ["role"]
    # The salt and hash are all the database holds; neither opens anything on its own.
    readonly_fields = ["salt", "token_hash"]


admin.site.register(
    [models.BuncoSet, models.Table, models.Correction, models.RoundBell, models.PrizeRollOff]
)
