# The legacy service's shape, for the differential test of the v2 path (test/rest/drf-differential.test.ts): a
# Django REST Framework list view with LimitOffsetPagination, DEBUG off, only CommonMiddleware (APPEND_SLASH).
SECRET_KEY = "differential-test-only"
DEBUG = False
ALLOWED_HOSTS = ["*"]
ROOT_URLCONF = "urls"
INSTALLED_APPS = ["django.contrib.contenttypes", "django.contrib.auth", "rest_framework"]
MIDDLEWARE = ["django.middleware.common.CommonMiddleware"]
APPEND_SLASH = True
DATABASES = {}
USE_TZ = True
REST_FRAMEWORK = {
    "DEFAULT_RENDERER_CLASSES": ["rest_framework.renderers.JSONRenderer"],
    "DEFAULT_PARSER_CLASSES": ["rest_framework.parsers.JSONParser"],
    "DEFAULT_CONTENT_NEGOTIATION_CLASS": "negotiation.ApiFormatNegotiation",
    "DEFAULT_AUTHENTICATION_CLASSES": [],
    "DEFAULT_PERMISSION_CLASSES": [],
    "UNAUTHENTICATED_USER": None,
}
# Errors logged to stderr, as a deployed service's were: Django's default (mail the admins) formats a
# traceback that reads the query again, and fails on a request refused for its query (a wsgiref 500).
LOGGING = {
    "version": 1,
    "disable_existing_loggers": False,
    "handlers": {"stderr": {"class": "logging.StreamHandler"}},
    "loggers": {"django": {"handlers": ["stderr"], "level": "ERROR", "propagate": False}},
}
