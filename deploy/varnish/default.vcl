# Varnish 7 in front of the gateway instances, as a CDN would be: it keeps each anonymous answer until its
# listing version is purged (Surrogate-Control max-age, CDN_MAX_AGE, is the bound when a purge is lost), files
# it under the answer's Surrogate-Key with the xkey module (Debian: varnish-modules), and takes the gateways'
# purges, POSTs to /.xkey-purge naming the keys in an `xkey-purge` header (PURGE_URLS, src/cache/purge.ts).
# Run: varnishd -f /etc/varnish/default.vcl -a :6081 -s malloc,256m; set the backends to your instances.
vcl 4.1;

import directors;
import std;
import xkey;

backend gateway_1 { .host = "127.0.0.1"; .port = "4001"; }
backend gateway_2 { .host = "127.0.0.1"; .port = "4002"; }

# Who may purge: the gateways' addresses.
acl purgers {
  "127.0.0.1";
  "::1";
}

sub vcl_init {
  new gateways = directors.round_robin();
  gateways.add_backend(gateway_1);
  gateways.add_backend(gateway_2);
}

sub vcl_recv {
  if (req.url == "/.xkey-purge") {
    if (req.method != "POST") { return (synth(405, "Method Not Allowed")); }
    if (client.ip !~ purgers) { return (synth(403, "Forbidden")); }
    if (!req.http.xkey-purge) { return (synth(400, "No xkey-purge header")); }
    set req.http.n-gone = xkey.purge(req.http.xkey-purge);
    return (synth(200, "Invalidated " + req.http.n-gone + " objects"));
  }
  set req.backend_hint = gateways.backend();
  # Only GET and HEAD are kept; a GraphQL POST goes through (send queries as GET, or persisted, to be kept).
  if (req.method != "GET" && req.method != "HEAD") { return (pass); }
  # An answer for an API key is that caller's: never shared.
  if (req.http.Authorization || req.http.X-Api-Key) { return (pass); }
  # The gateway sets no cookies and reads none.
  unset req.http.Cookie;
  return (hash);
}

sub vcl_backend_response {
  if (beresp.http.Surrogate-Key) {
    set beresp.http.xkey = beresp.http.Surrogate-Key;
  }
  # Surrogate-Control is the CDN's own lifetime; browsers keep the answer's short Cache-Control. An answer
  # without it (private, uncacheable, an error) is kept no longer than its Cache-Control says, if at all.
  if (beresp.http.Surrogate-Control ~ "max-age=[0-9]+") {
    set beresp.ttl = std.duration(regsub(beresp.http.Surrogate-Control, "^.*max-age=([0-9]+).*$", "\1") + "s", 0s);
    set beresp.grace = 0s;
  }
}

sub vcl_deliver {
  # What the CDN files answers under is not the browser's business.
  unset resp.http.xkey;
  unset resp.http.Surrogate-Key;
  unset resp.http.Surrogate-Control;
  unset resp.http.Cache-Tag;
  if (obj.hits > 0) {
    set resp.http.X-Edge-Cache = "hit";
  } else {
    set resp.http.X-Edge-Cache = "miss";
  }
}
