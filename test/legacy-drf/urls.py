from django.urls import path

import views

urlpatterns = [path("v2/local-package-list/", views.LocalPackageList.as_view())]
