"""What the devices app asks of the apps above it without importing them."""

from django.dispatch import Signal

# Sent (sender=Device, device=...) before a device is revoked, under its row lock. Each
# receiver answers the ids of the device's unfinished work (e.g. experiments' queued or active
# runs); any answer refuses the revocation (devices.services.device_revoke).
device_revoking = Signal()
