from django.apps import AppConfig


class DevicesConfig(AppConfig):
    name = "devices"

    def ready(self) -> None:
        # core.mqtt connects as the platform's broker identity, which this app manages.
        from core.mqtt import PlatformIdentity, platform_identity_register
        from devices import broker

        # Looked up at each call, so that tests may patch devices.broker.
        def tls_files() -> tuple[str, str, str]:
            files = broker.platform_tls_files()
            return files.ca_file, files.cert_file, files.key_file

        platform_identity_register(
            PlatformIdentity(
                enabled=lambda: broker.identities_enabled(),
                data_credentials=lambda: broker.platform_data_credentials(),
                tls_files=tls_files,
            )
        )
