# The legacy list view: the records of RECORDS_FILE (v2 Package records) in the listing's order (by identifier),
# served in the seeded order. The order is the gateway's keyed permutation (src/listing/permutation.ts), ported
# here bit for bit; everything else (negotiation, parameters, pagination, links, errors) is DRF's own.
import json
import os
import random

from rest_framework import generics, serializers
from rest_framework.exceptions import ParseError
from rest_framework.pagination import LimitOffsetPagination
from rest_framework.utils.urls import replace_query_param

M32 = 0xFFFFFFFF
ROUNDS = 4
SEED_MIN, SEED_MAX = -(2**31), 2**31 - 1


def mix32(value):
    h = value & M32
    h ^= h >> 16
    h = (h * 0x85EBCA6B) & M32
    h ^= h >> 13
    h = (h * 0xC2B2AE35) & M32
    h ^= h >> 16
    return h


class SeededOrder:
    """The records at the positions of the seeded permutation, sliced as a queryset would be."""

    def __init__(self, records, seed):
        self.records = records
        self.size = len(records)
        half = 1
        while 2 ** (2 * half) < self.size:
            half += 1
        self.half, self.mask = half, 2**half - 1
        self.keys = [mix32((seed & M32) ^ mix32(0x9E3779B9 * (r + 1))) for r in range(ROUNDS)]

    def encrypt(self, value):
        left, right = value >> self.half, value & self.mask
        for key in self.keys:
            left, right = right, left ^ (mix32(right ^ key) & self.mask)
        return (left << self.half) | right

    def at(self, index):
        position = self.encrypt(index)
        while position >= self.size:
            position = self.encrypt(position)
        return self.records[position]

    def __len__(self):
        return self.size

    def __getitem__(self, part):
        start = min(part.start or 0, self.size)
        stop = min(part.stop if part.stop is not None else self.size, self.size)
        return [self.at(i) for i in range(start, stop)]


class AsStored(serializers.BaseSerializer):
    def to_representation(self, instance):
        return instance


class SeededPagination(LimitOffsetPagination):
    default_limit = 50
    max_limit = 100

    def with_seed(self, url):
        return url if self.request.query_params.get("seed") is not None else replace_query_param(url, "seed", self.seed)

    def get_next_link(self):
        link = super().get_next_link()
        return None if link is None else self.with_seed(link)

    def get_previous_link(self):
        link = super().get_previous_link()
        return None if link is None else self.with_seed(link)


with open(os.environ["RECORDS_FILE"], encoding="utf-8") as source:
    RECORDS = sorted(json.load(source), key=lambda record: record["identifier"])


class LocalPackageList(generics.ListAPIView):
    serializer_class = AsStored
    pagination_class = SeededPagination

    @property
    def default_response_headers(self):
        # DRF adds Vary: Accept where a view has several renderers; the legacy view's answers all carried it.
        return {**super().default_response_headers, "Vary": "Accept"}

    def get_queryset(self):
        text = self.request.query_params.get("seed")
        if text is None:
            seed = random.randrange(0, SEED_MAX)
        else:
            try:
                seed = int(text)
            except ValueError:
                seed = None
            if seed is None or not SEED_MIN <= seed <= SEED_MAX:
                shown = json.dumps(text, ensure_ascii=False)
                raise ParseError(f"Invalid seed {shown}: expected an integer from {SEED_MIN} to {SEED_MAX}.")
        self.paginator.seed = seed
        return SeededOrder(RECORDS, seed)
