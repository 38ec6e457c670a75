# Varnish 7 in front of the gateway instances, as a CDN would be: it keeps an answer only when the gateway says
# it may (Surrogate-Control, sent with the anonymous answers the gateway keeps itself), until its listing version
# is purged (CDN_MAX_AGE is the bound when a purge is lost); it files the answer under its Surrogate-Key with the
# xkey module (Debian: varnish-modules), and takes the gateways' purges, POSTs to /.xkey-purge naming the keys in
# an `xkey-purge` header, separated by spaces (PURGE_URLS, src/cache/purge.ts; xkey.purge drops the objects filed
# under any of them). Every other answer (errors, refusals, answers for an API key, pages drawn at random,
# streams) goes through and is never kept. Answers vary by what their Vary names (Accept, Accept-Encoding,
# Authorization), and Varnish keeps one variant per value.
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
  # GraphQL takes no HEAD (405): Varnish would fetch a kept answer with GET for it.
  if (req.method == "HEAD" && req.url ~ "^/graphql([?#]|$)") { return (pass); }
  # An answer for an API key is that caller's: never shared.
  if (req.http.Authorization) { return (pass); }
  # A subscription's event stream is one client's, open for as long as it lasts: piped, so that it ends at the
  # gateway as soon as its client leaves (passed, Varnish would hold it until a heartbeat found the client gone,
  # counted against that client's SSE_MAX_PER_CALLER all the while).
  if (req.http.Accept ~ "^\s*text/event-stream\s*$") { return (pipe); }
  # The gateway sets no cookies and reads none.
  unset req.http.Cookie;
  return (hash);
}

sub vcl_backend_response {
  # Surrogate-Control is the CDN's own lifetime; browsers keep the answer's short Cache-Control. An answer
  # without it is one the gateway does not keep: it is not kept here either (a hit-for-miss: the next request
  # for it goes to a gateway at once, without waiting on this one, and may bring an answer that can be kept).
  if (beresp.http.Surrogate-Control !~ "max-age=[0-9]+") {
    set beresp.uncacheable = true;
    set beresp.ttl = 10s;
    return (deliver);
  }
  if (beresp.http.Surrogate-Key) {
    set beresp.http.xkey = beresp.http.Surrogate-Key;
  }
  set beresp.ttl = std.duration(regsub(beresp.http.Surrogate-Control, "^.*max-age=([0-9]+).*$", "\1") + "s", 0s);
  # Cache-Control's stale-while-revalidate is for browsers: past its lifetime a page is never served stale here.
  set beresp.grace = 0s;
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
