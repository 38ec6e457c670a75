# Serves the legacy view with the standard library's WSGI server (threaded) on 127.0.0.1 and a free port, and
# prints `listening http://127.0.0.1:PORT`. Run with Debian's python3 (its python3-djangorestframework).
import os
import sys
from socketserver import ThreadingMixIn
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
os.environ.setdefault("DJANGO_SETTINGS_MODULE", "settings")

from django.core.wsgi import get_wsgi_application  # noqa: E402


class Server(ThreadingMixIn, WSGIServer):
    daemon_threads = True


class Quiet(WSGIRequestHandler):
    def log_message(self, *args):
        pass


server = make_server("127.0.0.1", 0, get_wsgi_application(), server_class=Server, handler_class=Quiet)
print(f"listening http://127.0.0.1:{server.server_port}", flush=True)
server.serve_forever()
