# The legacy view's content negotiation: DRF's, with ?format=api giving the JSON page as ?format=json did.
from rest_framework.negotiation import DefaultContentNegotiation


class ApiFormatNegotiation(DefaultContentNegotiation):
    """?format=api gave the JSON page as ?format=json did."""

    def filter_renderers(self, renderers, format):
        return super().filter_renderers(renderers, "json" if format == "api" else format)
