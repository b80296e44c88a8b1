/* dicepost's service worker: shows the pushes service.push sends, opens their page on a tap
   (or turns push off from the notification), and keeps the last player page viewed so it
   can be read offline. */
"use strict";
var HOME = {{ url_for("web.home") | tojson }};
var OFF = {{ url_for("web.push_unsubscribe") | tojson }};
var ICON = {{ url_for("web.app_icon", name="icon-192.png") | tojson }};
var OVERVIEW = {{ url_for("dashboard.home") | tojson }};
var PAGES = "dicepost-last-page-v1";  // the last player page viewed, one entry
var LINKS = "dicepost-player-links-v1";  // game id -> this browser's player page of it
var PLAYER = new RegExp("^" + HOME.replace(/\/$/, "") + "/(games/[^/]+/player/[^/]+|me/play/[0-9]+)/?$");

self.addEventListener("install", function () { self.skipWaiting(); });
self.addEventListener("activate", function (event) { event.waitUntil(self.clients.claim()); });

function linkKey(game) { return HOME + "__player-link/" + encodeURIComponent(game); }

async function rememberLink(game, url) {
  var links = await caches.open(LINKS);
  await links.put(linkKey(game), new Response(url));
}

async function playerLink(game) {
  if (!game) return null;
  var found = await (await caches.open(LINKS)).match(linkKey(game));
  return found ? found.text() : null;
}

async function keepPage(url, response) {
  var pages = await caches.open(PAGES);
  var kept = await pages.keys();
  for (var i = 0; i < kept.length; i++) await pages.delete(kept[i]);
  await pages.put(url, response);
}

async function offlinePage(url) {
  var pages = await caches.open(PAGES);
  var same = await pages.match(url);
  if (same) return same;
  var kept = await pages.keys();
  if (kept.length) return pages.match(kept[0]);
  return new Response("<!doctype html><meta charset=utf-8><title>Offline · dicepost</title>" +
    "<p>You are offline, and this browser has kept no player page yet.</p>",
    {status: 503, headers: {"Content-Type": "text/html; charset=utf-8"}});
}

self.addEventListener("fetch", function (event) {
  var request = event.request;
  if (request.method !== "GET" || request.mode !== "navigate") return;
  var url = new URL(request.url);
  if (url.origin !== self.location.origin || !PLAYER.test(url.pathname)) return;
  event.respondWith(fetch(request).then(function (response) {
    if (response.ok) event.waitUntil(keepPage(request.url, response.clone()));
    return response;
  }).catch(function () { return offlinePage(request.url); }));
});

self.addEventListener("message", function (event) {
  var data = event.data || {};
  if (data.type === "player-page" && data.game && data.url) event.waitUntil(rememberLink(data.game, data.url));
});

async function show(data) {
  var url = data.url || HOME;
  var own = await playerLink(data.game);
  if (own) url = own;
  var title = data.title || "dicepost";
  var body = data.body || "";
  var tag = data.tag || "dicepost";
  var turns = data.game && (data.events || []).every(function (e) { return e === "turn" || e === "reminder"; })
    ? [data.game_title || data.game] : [];
  if (turns.length) {
    // Turns in other games already on screen: one notification says them all.
    var shown = await self.registration.getNotifications();
    shown.forEach(function (n) {
      var games = (n.data && n.data.turns) || [];
      if (!games.length || n.tag === tag) return;
      games.forEach(function (g) { if (turns.indexOf(g) < 0) turns.push(g); });
      n.close();
    });
    if (turns.length > 1) {
      title = "Your turn in " + turns.length + " games";
      body = turns.join(", ");
      tag = "turn";
      url = data.overview || OVERVIEW;
    }
  }
  return self.registration.showNotification(title, {
    body: body, tag: tag, renotify: true, icon: ICON, badge: ICON,
    data: {url: url, game: data.game || null, turns: turns},
    actions: [{action: "open", title: "Open"}, {action: "off", title: "Turn off notifications"}]
  });
}

self.addEventListener("push", function (event) {
  var data;
  try { data = event.data ? event.data.json() : {}; }
  catch (e) { data = {title: "dicepost", body: event.data ? event.data.text() : ""}; }
  event.waitUntil(show(data));
});

async function openPage(url) {
  var windows = await self.clients.matchAll({type: "window", includeUncontrolled: true});
  for (var i = 0; i < windows.length; i++) {
    if (windows[i].url === url && "focus" in windows[i]) return windows[i].focus();
  }
  return self.clients.openWindow(url);
}

async function turnOff() {
  var subscription = await self.registration.pushManager.getSubscription();
  if (!subscription) return;
  await fetch(OFF, {method: "POST", headers: {"Content-Type": "application/json"},
                    body: JSON.stringify({endpoint: subscription.endpoint})});
  await subscription.unsubscribe();
}

self.addEventListener("notificationclick", function (event) {
  var notification = event.notification;
  notification.close();
  var done = event.action === "off" ? turnOff() : openPage((notification.data && notification.data.url) || HOME);
  event.waitUntil(done);
});
