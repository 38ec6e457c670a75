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
