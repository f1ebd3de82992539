"""factory_boy factories shared by the backend's tests."""

from __future__ import annotations

import secrets

import factory
from django.contrib.auth import get_user_model
from django.contrib.auth.models import AbstractBaseUser

from accounts.models import Membership, Workspace
from devices.authentication import token_hash
from devices.models import Device
from experiments.models import Experiment


class WorkspaceFactory(factory.django.DjangoModelFactory[Workspace]):
    class Meta:
        model = Workspace

    name = factory.Faker("company")


class UserFactory(factory.django.DjangoModelFactory[AbstractBaseUser]):
    class Meta:
        model = get_user_model()
        skip_postgeneration_save = True

    username = factory.Sequence(lambda n: f"user{n}")
    password = factory.django.Password("correct horse battery")


class MembershipFactory(factory.django.DjangoModelFactory[Membership]):
    class Meta:
        model = Membership

    workspace = factory.SubFactory(WorkspaceFactory)
    user = factory.SubFactory(UserFactory)
    role = Membership.Role.OWNER


class DeviceFactory(factory.django.DjangoModelFactory[Device]):
    class Meta:
        model = Device

    workspace = factory.SubFactory(WorkspaceFactory)
    name = factory.Sequence(lambda n: f"pi-{n:02d}")
    token_hash = factory.LazyFunction(lambda: token_hash(secrets.token_urlsafe(16)))
    online = True
    facts = factory.LazyFunction(lambda: {"hostname": "pi", "cpu_cores": 4})


class ExperimentFactory(factory.django.DjangoModelFactory[Experiment]):
    class Meta:
        model = Experiment
        skip_postgeneration_save = True

    workspace = factory.SubFactory(WorkspaceFactory)
    name = factory.Sequence(lambda n: f"experiment {n}")
    qos = 1
    payload_size = 66
    message_count = 100

    @factory.post_generation
    def devices(self, create: bool, extracted: list[Device] | None, **kwargs: object) -> None:
        if create and extracted:
            self.devices.set(extracted)
