// elo-ladder console: plain JavaScript, no dependencies, served by the server itself.
//
// It calls the server's public JSON API (the routes in the README's table) with the key its
// user types in, exactly as any other client does. The key is kept in this tab's
// sessionStorage (gone when the tab closes; never a cookie, never localStorage) and sent
// only as `Authorization: Bearer` to this origin. A link can hand a key over in the URL
// fragment (`/console#key=KEY&ladder=NAME`, which browsers never send to a server); the
// console takes it and removes it from the address bar at once.
//
// Every list is paged by the API (leaderboards, histories, the journal, standings): nothing
// loads a whole ladder. The page is built with DOM calls only (never HTML from text), as the
// Content-Security-Policy's Trusted Types requirement enforces.
"use strict";

(function () {
  const KEY_STORE = "elo-ladder-console-key";
  const MATCH_KINDS = ["pair", "team", "free_for_all"];
  const JOURNAL_KINDS = ["pair", "team", "free_for_all", "season_end", "decay", "period_end", "annul", "correct"];
  // Confirmations count the entries after a match a page at a time, up to this many pages.
  const COUNT_PAGES = 5;
  const COUNT_PAGE = 1000;

  const main = document.getElementById("main");
  const nav = document.getElementById("nav");
  const who = document.getElementById("who");
  const statusBox = document.getElementById("status");
  const errorBox = document.getElementById("error");

  // The signed-in key and what it may do ({id, scope, ladder}), or null.
  let key = null;
  let me = null;
  // Each render gets a number; an answer for an older render is dropped.
  let renderCount = 0;


  // ---------------------------------------------------------------------------------------
  // DOM helpers: elements from tag, attributes and children (text is always text).

  function h(tag, attrs, ...children) {
    const el = document.createElement(tag);
    for (const [name, value] of Object.entries(attrs || {})) {
      if (value === null || value === undefined || value === false) continue;
      if (name.startsWith("on") && typeof value === "function") el.addEventListener(name.slice(2), value);
      else if (name === "class") el.className = value;
      else el.setAttribute(name, value === true ? "" : String(value));
    }
    append(el, children);
    return el;
  }

  function append(el, children) {
    for (const child of children.flat(Infinity)) {
      if (child === null || child === undefined || child === false) continue;
      el.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return el;
  }

  function svg(tag, attrs, ...children) {
    const el = document.createElementNS("http://www.w3.org/2000/svg", tag);
    for (const [name, value] of Object.entries(attrs || {})) {
      if (value !== null && value !== undefined) el.setAttribute(name, String(value));
    }
    for (const child of children.flat(Infinity)) {
      if (child === null || child === undefined || child === false) continue;
      el.append(child instanceof Node ? child : document.createTextNode(String(child)));
    }
    return el;
  }

  function clear(el) {
    while (el.firstChild) el.firstChild.remove();
  }

  // ---------------------------------------------------------------------------------------
  // Formats.

  // A rating as the console shows it: one decimal (the API's value, rounded half up).
  function rating(value) {
    return (Math.round(value * 10) / 10).toFixed(1);
  }

  function signed(value) {
    const text = rating(value);
    return value > 0 && text !== "0.0" ? "+" + text : text === "-0.0" ? "0.0" : text;
  }

  function count(n) {
    return Number(n).toLocaleString("en-US");
  }

  function time(seconds) {
    if (seconds === null || seconds === undefined) return "none";
    return new Date(seconds * 1000).toISOString().slice(0, 16).replace("T", " ") + " UTC";
  }

  function kindName(kind) {
    return { pair: "pair", team: "teams", free_for_all: "free-for-all", season_end: "season end", decay: "decay", period_end: "period end", annul: "annulment", correct: "correction" }[kind] || kind;
  }

  // What an entry's inputs say, in a line.
  function describeInputs(kind, inputs) {
    if (!inputs) return "";
    const score = (s) => (s === 1 ? "won" : s === 0 ? "lost" : s === 0.5 ? "drew" : "scored " + s);
    switch (kind) {
      case "pair":
        return inputs.a + " " + score(inputs.score_a) + " against " + inputs.b;
      case "team":
        return (inputs.team_a || []).join(", ") + " " + score(inputs.score_a) + " against " + (inputs.team_b || []).join(", ");
      case "free_for_all":
        return (inputs.entrants || []).map((p, i) => p + " #" + inputs.places[i]).join(", ");
      case "annul":
        return "annulled " + inputs.match + ": " + inputs.reason;
      case "correct":
        return "corrected " + inputs.match + " to " + describeInputs(inputs.result && inputs.result.kind, inputs.result);
      case "season_end":
        return inputs.next_rules ? "new rules from the next season" : inputs.missed ? "scheduled (" + inputs.missed + " missed)" : "";
      case "decay":
      case "period_end":
        return inputs.missed ? "scheduled (" + inputs.missed + " missed)" : "";
      default:
        return "";
    }
  }

  // A journal entry in a line: what was played or done, and for events and amendments what
  // came of it.
  function describeEntry(e) {
    const r = e.results || {};
    switch (e.kind) {
      case "season_end":
        return "season " + r.season + " ended for " + count(r.players) + " players" + (e.inputs && e.inputs.next_rules ? "; new rules from here" : "");
      case "decay":
        return count(r.moved) + " players decayed";
      case "period_end":
        return "rating period ended: " + count(r.matches) + " held matches rated for " + count(r.players) + " players";
      case "annul":
      case "correct":
        return describeInputs(e.kind, e.inputs) + " (" + count(r.rerated) + " matches re-rated)";
      default:
        return describeInputs(e.kind, e.inputs);
    }
  }

  function resultOf(kind, inputs) {
    if (!inputs) return "";
    if (kind === "free_for_all") return "places " + (inputs.places || []).join(", ");
    return "score_a " + inputs.score_a;
  }

  // ---------------------------------------------------------------------------------------
  // The API.

  class ApiError extends Error {
    constructor(status, code, message) {
      super(message);
      this.status = status;
      this.code = code;
    }
  }

  async function api(method, path, body) {
    const headers = { Authorization: "Bearer " + key };
    if (body !== undefined) headers["Content-Type"] = "application/json";
    let response;
    try {
      response = await fetch(path, { method, headers, body: body === undefined ? undefined : JSON.stringify(body), cache: "no-store", credentials: "omit" });
    } catch (e) {
      throw new ApiError(0, "unreachable", "the server cannot be reached (" + e.message + ")");
    }
    const text = await response.text();
    let value = null;
    try {
      value = text ? JSON.parse(text) : null;
    } catch (e) {
      value = null;
    }
    if (!response.ok) {
      const error = value && value.error ? value.error : { code: "http_" + response.status, message: text.slice(0, 200) || response.statusText };
      const e = new ApiError(response.status, error.code, error.message);
      e.retryAfter = response.headers.get("Retry-After");
      throw e;
    }
    return value;
  }

  const enc = encodeURIComponent;
  const ladderPath = (ladder) => "/v1/ladders/" + enc(ladder);

  // A check of the console's own (a missing reason, say): its message is the sentence.
  function refusal(message) {
    const e = new Error(message);
    e.local = true;
    return e;
  }

  // A clear sentence for an error.
  function explain(e) {
    if (e.local) return e.message;
    if (!(e instanceof ApiError)) return "Something went wrong in the console: " + e.message;
    switch (e.status) {
      case 0:
        return "Cannot reach the ladder server: " + e.message + ".";
      case 401:
        return "This key was not accepted (" + e.message + "). Check that you copied the whole key, elo_…, and that it has not been revoked.";
      case 403:
        return "This key may not do that: " + e.message + ".";
      case 404:
        return "Not found: " + e.message + ".";
      case 429:
        return "Too many requests: " + e.message + (e.retryAfter ? " Try again in " + e.retryAfter + " s." : "");
      default:
        return "The server refused (" + e.status + " " + e.code + "): " + e.message;
    }
  }

  function showError(e) {
    clear(errorBox);
    if (e) errorBox.textContent = typeof e === "string" ? e : explain(e);
  }

  function showStatus(text) {
    statusBox.textContent = text || "";
  }

  // ---------------------------------------------------------------------------------------
  // Routes: the state of a page lives in the fragment (`#ladder=main&view=board&offset=50`),
  // so every page is a link, the back button works, and nothing reaches the server.

  function route() {
    return new URLSearchParams(location.hash.replace(/^#/, ""));
  }

  function link(params) {
    const p = new URLSearchParams();
    for (const [name, value] of Object.entries(params)) {
      if (value !== null && value !== undefined && value !== "") p.set(name, String(value));
    }
    return "#" + p.toString();
  }

  function go(params) {
    location.hash = link(params);
  }

  // A key handed over in the fragment: kept for the tab, then removed from the address bar
  // (and from the history entry) before anything else runs.
  function takeKeyFromFragment() {
    const params = route();
    if (!params.has("key")) return;
    const given = params.get("key").trim();
    params.delete("key");
    if (params.has("ladder") && !params.has("view")) params.set("view", "board");
    const rest = params.toString();
    history.replaceState(null, "", location.pathname + location.search + (rest ? "#" + rest : ""));
    if (given) {
      sessionStorage.setItem(KEY_STORE, given);
      me = null;
    }
  }

  function signOut(message) {
    sessionStorage.removeItem(KEY_STORE);
    key = null;
    me = null;
    render();
    if (message) showError(message);
  }

  // ---------------------------------------------------------------------------------------
  // The frame: navigation and who is signed in.

  function drawFrame(params) {
    clear(nav);
    clear(who);
    if (!me) return;
    const ladder = params.get("ladder");
    const view = params.get("view") || (ladder ? "board" : "ladders");
    const item = (label, target, current) => h("li", {}, h("a", { href: link(target), "aria-current": current ? "page" : null }, label));
    const items = [item("Ladders", {}, !ladder)];
    if (ladder) {
      items.push(item("Leaderboard", { ladder, view: "board" }, view === "board"));
      items.push(item("Journal", { ladder, view: "journal" }, view === "journal"));
      items.push(item("Seasons", { ladder, view: "seasons" }, view === "seasons" || view === "season"));
      items.push(item("Schedule", { ladder, view: "schedule" }, view === "schedule"));
      items.push(item("Queues", { ladder, view: "queues" }, view === "queues"));
      if (isAdmin()) items.push(item("Webhooks", { ladder, view: "webhooks" }, view === "webhooks"));
    }
    append(nav, [h("ul", {}, items)]);
    const scope = h("span", { id: "scope", "data-scope": me.scope }, me.scope + " key ", h("code", {}, me.id), me.ladder ? " (ladder " + me.ladder + " only)" : "");
    append(who, [scope, h("button", { type: "button", id: "sign-out", onclick: () => signOut() }, "Sign out")]);
  }

  function isAdmin() {
    return me && me.scope === "admin";
  }

  // A view's heading, focused after navigation so that keyboard and screen-reader users
  // start at the new content.
  function heading(text) {
    return h("h1", { tabindex: "-1", id: "heading" }, text);
  }

  function table(headers, rows, attrs) {
    const head = h("tr", {}, headers.map((c) => (typeof c === "string" ? h("th", { scope: "col" }, c) : h("th", Object.assign({ scope: "col" }, c.attrs), c.text))));
    return h("div", { class: "scroll" }, h("table", attrs || {}, h("thead", {}, head), h("tbody", {}, rows)));
  }

  function pager(label, previous, next, extra) {
    const part = (text, target, rel) => (target ? h("a", { href: link(target), rel }, text) : h("span", { class: "disabled", "aria-disabled": "true" }, text));
    return h("nav", { class: "pager", "aria-label": label }, part(previous[0], previous[1], "prev"), part(next[0], next[1], "next"), extra || null);
  }

  // ---------------------------------------------------------------------------------------
  // Rendering.

  async function render() {
    const number = ++renderCount;
    const fresh = () => number === renderCount;
    showError(null);
    key = sessionStorage.getItem(KEY_STORE);
    const params = route();
    if (!key) {
      drawFrame(params);
      return drawSignIn(params);
    }
    if (!me) {
      try {
        me = await api("GET", "/v1/keys/me");
      } catch (e) {
        if (!fresh()) return;
        if (e.status === 401) {
          sessionStorage.removeItem(KEY_STORE);
          key = null;
          drawFrame(params);
          drawSignIn(params);
          showError(e);
          return;
        }
        clear(main);
        showError(e);
        return;
      }
      if (!fresh()) return;
    }
    drawFrame(params);
    const ladder = params.get("ladder");
    const view = params.get("view") || (ladder ? "board" : "ladders");
    const views = Object.assign({}, window.eloConsoleViews || {}, {
      ladders: viewLadders,
      board: viewBoard,
      player: viewPlayer,
      journal: viewJournal,
      seasons: viewSeasons,
      season: viewSeason,
      schedule: viewSchedule,
    });
    const draw = (ladder || view === "ladders") && views[view] ? views[view] : viewLadders;
    main.setAttribute("aria-busy", "true");
    try {
      const content = await draw(params);
      if (!fresh()) return;
      clear(main);
      append(main, [content]);
      const title = main.querySelector("h1");
      document.title = (title ? title.textContent + " · " : "") + "elo-ladder console";
      if (title && focusOnRender) title.focus();
    } catch (e) {
      if (!fresh()) return;
      if (e.status === 401) {
        signOut(explain(e));
        return;
      }
      clear(main);
      append(main, [heading("This page could not be shown")]);
      showError(e);
    } finally {
      if (fresh()) {
        main.removeAttribute("aria-busy");
        main.setAttribute("data-ready", String(number));
      }
    }
  }

  // Focus moves to a new page's heading after a navigation, not at the first load.
  let focusOnRender = false;

  function drawSignIn(params) {
    clear(main);
    const input = h("input", { id: "key", name: "key", type: "password", autocomplete: "off", spellcheck: "false", required: true, "aria-describedby": "key-help" });
    const ladderInput = h("input", { id: "ladder-name", name: "ladder", type: "text", autocomplete: "off", value: params.get("ladder") || "" });
    const form = h(
      "form",
      {
        class: "signin",
        id: "sign-in",
        onsubmit: (event) => {
          event.preventDefault();
          const given = input.value.trim();
          if (!given) return;
          sessionStorage.setItem(KEY_STORE, given);
          me = null;
          const ladder = ladderInput.value.trim();
          const target = ladder ? link({ ladder, view: "board" }) : "#";
          if (location.hash === target || (target === "#" && !location.hash)) render();
          else location.hash = target;
        },
      },
      heading("Sign in"),
      h("p", {}, "Type an API key made with ", h("code", {}, "elo-ladder keys create"), ". A read key shows the ladders; an admin key also shows the actions that change them."),
      h("div", { class: "field" }, h("label", { for: "key" }, "API key"), input),
      h("p", { id: "key-help", class: "muted" }, "The key stays in this tab only (its session storage) and is sent only to this server. Closing the tab or Sign out forgets it."),
      h("div", { class: "field" }, h("label", { for: "ladder-name" }, "Ladder (optional)"), ladderInput),
      h("button", { type: "submit" }, "Sign in")
    );
    append(main, [form]);
    main.setAttribute("data-ready", "signin");
    input.focus();
  }

  // The ladders: players, last match, season, the next scheduled season end and decay.
  async function viewLadders() {
    const { ladders } = await api("GET", "/v1/ladders");
    const lastMatches = await Promise.all(ladders.map((l) => lastMatch(l)));
    const rows = ladders.map((l, i) => {
      const last = lastMatches[i];
      return h(
        "tr",
        { "data-ladder": l.name },
        h("td", {}, h("a", { href: link({ ladder: l.name, view: "board" }) }, l.name)),
        h("td", { class: "num" }, count(l.players)),
        h("td", {}, last ? [time(last.time), " ", h("span", { class: "muted" }, last.id || "")] : h("span", { class: "muted" }, "none")),
        h("td", { class: "num" }, l.season),
        h("td", {}, time(l.next.season_end), l.schedule.season_end ? h("div", { class: "muted" }, h("code", {}, l.schedule.season_end)) : null),
        h("td", {}, time(l.next.decay), l.schedule.decay ? h("div", { class: "muted" }, h("code", {}, l.schedule.decay)) : null)
      );
    });
    return h(
      "section",
      {},
      heading("Ladders"),
      ladders.length
        ? table(["Ladder", { text: "Players", attrs: { class: "num" } }, "Last match", { text: "Season", attrs: { class: "num" } }, "Next season end", "Next decay"], rows, { id: "ladders" })
        : h("p", {}, "This key sees no ladder yet (an admin key creates one with PUT /v1/ladders/NAME).")
    );
  }

  // A ladder's newest match: the newest entry of each match kind (one indexed read each).
  async function lastMatch(ladder) {
    if (!ladder.last_seq) return null;
    const pages = await Promise.all(MATCH_KINDS.map((kind) => api("GET", ladderPath(ladder.name) + "/matches?before=" + (ladder.last_seq + 1) + "&limit=1&kind=" + kind)));
    const newest = pages.map((p) => p.entries[0]).filter(Boolean);
    newest.sort((a, b) => b.seq - a.seq);
    return newest[0] || null;
  }

  // The leaderboard: a page from an offset, or the page around a player.
  async function viewBoard(params) {
    const ladder = params.get("ladder");
    const limit = clampLimit(params.get("limit"), 25);
    const around = params.get("around");
    const offset = Math.max(0, parseInt(params.get("offset") || "0", 10) || 0);
    const summary = await api("GET", ladderPath(ladder));
    let entries;
    if (around) {
      entries = (await api("GET", ladderPath(ladder) + "/leaderboard?around=" + enc(around) + "&limit=" + limit)).entries;
    } else {
      entries = (await api("GET", ladderPath(ladder) + "/leaderboard?offset=" + offset + "&limit=" + limit)).entries;
    }
    const first = entries.length ? entries[0].rank : offset + 1;
    const last = entries.length ? entries[entries.length - 1].rank : offset;
    const rows = entries.map((e) =>
      h(
        "tr",
        { class: e.player === around ? "current" : null, "aria-current": e.player === around ? "true" : null },
        h("td", { class: "num" }, e.rank),
        h("td", {}, h("a", { href: link({ ladder, view: "player", player: e.player }) }, e.player)),
        h("td", { class: "num" }, rating(e.rating)),
        h("td", { class: "num" }, e.league)
      )
    );
    const findInput = h("input", { id: "find", name: "player", type: "search", autocomplete: "off", value: around || "", required: true });
    const find = h(
      "form",
      {
        id: "find-form",
        role: "search",
        onsubmit: async (event) => {
          event.preventDefault();
          const name = findInput.value.trim();
          if (!name) return;
          try {
            await api("GET", ladderPath(ladder) + "/players/" + enc(name));
            go({ ladder, view: "board", around: name, limit: params.get("limit") });
          } catch (e) {
            if (e.status === 401) return signOut(explain(e));
            showError(e.status === 404 ? "No player named \u201c" + name + "\u201d on ladder " + ladder + " (names are exact: case and spelling)." : explain(e));
          }
        },
      },
      h("div", {}, h("label", { for: "find" }, "Find a player (exact name)"), findInput),
      h("button", { type: "submit" }, "Find")
    );
    const rankInput = h("input", { id: "goto-rank", name: "rank", type: "number", min: "1", max: String(Math.max(1, summary.players)), value: around ? "" : String(offset + 1) });
    const goto = h(
      "form",
      {
        id: "goto-form",
        onsubmit: (event) => {
          event.preventDefault();
          const rank = Math.max(1, parseInt(rankInput.value, 10) || 1);
          go({ ladder, view: "board", offset: rank - 1, limit: params.get("limit") });
        },
      },
      h("div", {}, h("label", { for: "goto-rank" }, "From rank"), rankInput),
      h("button", { type: "submit" }, "Show")
    );
    const sizes = limitSelect(limit, (value) => go({ ladder, view: "board", offset: around ? first - 1 : offset, limit: value }));
    const previousOffset = Math.max(0, first - 1 - limit);
    const previous = first > 1 ? { ladder, view: "board", offset: previousOffset, limit: params.get("limit") } : null;
    const next = last < summary.players ? { ladder, view: "board", offset: last, limit: params.get("limit") } : null;
    return h(
      "section",
      {},
      heading("Leaderboard of " + ladder),
      h("p", { class: "muted", id: "board-summary" }, entries.length ? "Ranks " + count(first) + " to " + count(last) + " of " + count(summary.players) + " players" : "No players on this page", " · season " + summary.season),
      h("div", { class: "toolbar" }, find, goto, sizes),
      entries.length ? table([{ text: "Rank", attrs: { class: "num" } }, "Player", { text: "Rating", attrs: { class: "num" } }, { text: "League", attrs: { class: "num" } }], rows, { id: "board" }) : null,
      pager("Leaderboard pages", ["\u2190 Better ranks", previous], ["Worse ranks \u2192", next])
    );
  }

  function clampLimit(text, fallback) {
    const n = parseInt(text || "", 10);
    return [10, 25, 50, 100].includes(n) ? n : fallback;
  }

  function limitSelect(limit, change) {
    const select = h("select", { id: "page-size", onchange: () => change(select.value) }, [10, 25, 50, 100].map((n) => h("option", { value: n, selected: n === limit }, n)));
    return h("div", {}, h("label", { for: "page-size" }, "Lines per page"), select);
  }

  // A player: state and rank, the rating chart over a page of their history, the history.
  async function viewPlayer(params) {
    const ladder = params.get("ladder");
    const name = params.get("player");
    const before = params.get("before");
    const limit = clampLimit(params.get("limit"), 50);
    const [player, history] = await Promise.all([
      api("GET", ladderPath(ladder) + "/players/" + enc(name)),
      api("GET", ladderPath(ladder) + "/players/" + enc(name) + "/matches?limit=" + limit + (before ? "&before=" + enc(before) : "")),
    ]);
    const entries = history.entries;
    const fact = (label, value, id) => h("div", {}, h("dt", {}, label), h("dd", { id }, value));
    const facts = h(
      "dl",
      { class: "facts" },
      fact("Rank", count(player.rank), "player-rank"),
      fact("Rating", rating(player.rating), "player-rating"),
      fact("Games", count(player.games_played), "player-games"),
      fact("League", player.league, "player-league"),
      player.peak_rating !== undefined ? fact("Peak rating", rating(player.peak_rating), "player-peak") : null
    );
    const rows = entries.map((e) => {
      const actions = isAdmin() && MATCH_KINDS.includes(e.kind) && !e.annulled ? matchActions(ladder, e) : null;
      return h(
        "tr",
        { class: e.annulled ? "annulled" : null, "data-seq": e.seq },
        h("td", { class: "num" }, e.seq),
        h("td", { class: "hide-narrow" }, time(e.time)),
        h("td", {}, kindName(e.kind)),
        h("td", {}, e.id || ""),
        h("td", { class: "num" }, rating(e.rating_before)),
        h("td", { class: "num" }, rating(e.rating_after)),
        h("td", { class: "num" }, e.annulled ? h("span", { class: "muted", title: "reported " + signed(e.rating_after - e.rating_before) }, "0.0") : signed(e.rating_after - e.rating_before)),
        h("td", {}, e.annulled ? h("span", { class: "tag annulled" }, "annulled") : ""),
        isAdmin() ? h("td", {}, actions) : null
      );
    });
    const headers = ["Seq", { text: "Time", attrs: { class: "hide-narrow" } }, "Kind", "Match", { text: "Before", attrs: { class: "num" } }, { text: "After", attrs: { class: "num" } }, { text: "Change", attrs: { class: "num" } }, "Status"];
    if (isAdmin()) headers.push("Actions");
    const older = history.before ? { ladder, view: "player", player: name, before: history.before, limit: params.get("limit") } : null;
    const newest = before ? { ladder, view: "player", player: name, limit: params.get("limit") } : null;
    return h(
      "section",
      {},
      heading("Player " + player.player),
      facts,
      h("p", {}, h("a", { href: link({ ladder, view: "board", around: player.player }) }, "Show on the leaderboard")),
      h("h2", { id: "chart-title" }, "Rating over ", entries.length === 1 ? "1 entry" : entries.length + " entries", before ? " (older page)" : " (newest)"),
      chart(entries),
      h("h2", {}, "Matches and events, newest first"),
      entries.length ? table(headers, rows, { id: "history" }) : h("p", {}, "No entries."),
      pager("History pages", ["\u2190 Newest", newest], ["Older \u2192", older]),
      isAdmin() ? eraseSection(ladder, player.player) : null
    );
  }

  // The rating chart: an SVG line over the entries of a history page, oldest on the left;
  // each point is the rating after the entry, and annulled matches are marked (they count
  // for nothing: the rating does not move there). Drawn here, no chart library.
  function chart(newestFirst) {
    const entries = newestFirst.slice().reverse();
    const width = 720;
    const height = 260;
    const pad = { left: 56, right: 16, top: 14, bottom: 30 };
    if (!entries.length) return h("p", { class: "muted" }, "No rating history yet.");
    // An annulled match counts for nothing: the line stays at the rating before it.
    const effective = (e) => (e.annulled ? e.rating_before : e.rating_after);
    const values = [entries[0].rating_before].concat(entries.map(effective));
    // The axis: about four round steps (1, 2, 2.5 or 5 times a power of ten) around the values.
    const least = Math.min(...values);
    const most = Math.max(...values);
    const raw = Math.max(most - least, 2) / 4;
    const power = Math.pow(10, Math.floor(Math.log10(raw)));
    const step = [1, 2, 2.5, 5, 10].find((m) => m * power >= raw) * power;
    const low = Math.floor(least / step) * step;
    const high = Math.max(Math.ceil(most / step) * step, low + step);
    const plotW = width - pad.left - pad.right;
    const plotH = height - pad.top - pad.bottom;
    // Points at 1..n; the start (the rating before the first entry) at 0.
    const x = (i) => pad.left + (entries.length === 0 ? 0 : (i / entries.length) * plotW);
    const y = (v) => pad.top + (1 - (v - low) / (high - low)) * plotH;
    const fixed = (n) => n.toFixed(1);
    const parts = [];
    for (let t = 0; low + t * step <= high + step / 2; t++) {
      const v = low + t * step;
      parts.push(svg("line", { class: "grid", x1: pad.left, x2: width - pad.right, y1: fixed(y(v)), y2: fixed(y(v)) }));
      parts.push(svg("text", { x: pad.left - 6, y: fixed(y(v) + 4), "text-anchor": "end", class: "tick" }, rating(v)));
    }
    parts.push(svg("line", { class: "axis", x1: pad.left, x2: pad.left, y1: pad.top, y2: height - pad.bottom }));
    parts.push(svg("line", { class: "axis", x1: pad.left, x2: width - pad.right, y1: height - pad.bottom, y2: height - pad.bottom }));
    parts.push(svg("text", { x: pad.left, y: height - 8, "text-anchor": "start" }, "before #" + entries[0].seq));
    parts.push(svg("text", { x: width - pad.right, y: height - 8, "text-anchor": "end" }, "#" + entries[entries.length - 1].seq));
    // Season ends (a soft reset moves every rating) as dashed lines before their point.
    entries.forEach((e, i) => {
      if (e.kind !== "season_end") return;
      const at = fixed(x(i + 0.5));
      parts.push(svg("line", { class: "season", x1: at, x2: at, y1: pad.top, y2: height - pad.bottom }));
      parts.push(svg("text", { x: at, y: height - pad.bottom - 6, "text-anchor": "middle", class: "season-label" }, "season end"));
    });
    const points = [[x(0), y(entries[0].rating_before)]].concat(entries.map((e, i) => [x(i + 1), y(effective(e))]));
    parts.push(svg("polyline", { class: "line", points: points.map((p) => fixed(p[0]) + "," + fixed(p[1])).join(" ") }));
    entries.forEach((e, i) => {
      const what = e.annulled
        ? "annulled, counts for nothing: stays " + rating(e.rating_before) + " (reported " + rating(e.rating_before) + " \u2192 " + rating(e.rating_after) + ")"
        : rating(e.rating_before) + " \u2192 " + rating(e.rating_after);
      const label = "#" + e.seq + " " + (e.id ? e.id + " " : "") + "(" + kindName(e.kind) + "): " + what;
      const cx = fixed(x(i + 1));
      const cy = fixed(y(effective(e)));
      const title = svg("title", {}, label);
      if (e.annulled) {
        const r = 5;
        parts.push(
          svg(
            "g",
            { class: "marker annulled", "data-seq": e.seq },
            title,
            svg("circle", { class: "point annulled", cx, cy, r }),
            svg("line", { class: "cross", x1: cx - r, y1: cy - r, x2: +cx + r, y2: +cy + r }),
            svg("line", { class: "cross", x1: cx - r, y1: +cy + r, x2: +cx + r, y2: cy - r })
          )
        );
      } else {
        parts.push(svg("g", { class: "marker", "data-seq": e.seq }, title, svg("circle", { class: "point", cx, cy, r: 3.5 })));
      }
    });
    const annulled = entries.filter((e) => e.annulled).length;
    const first = entries[0].rating_before;
    const lastValue = effective(entries[entries.length - 1]);
    const description = "Rating from " + rating(first) + " to " + rating(lastValue) + " over " + entries.length + " entries" + (annulled ? ", " + annulled + " annulled" : "") + ".";
    return h(
      "figure",
      { class: "chart-figure" },
      svg("svg", { class: "chart", id: "chart", viewBox: "0 0 " + width + " " + height, role: "img", "aria-label": description }, svg("title", {}, description), parts),
      h("figcaption", { class: "legend" }, description, annulled ? [" ", h("span", { class: "swatch" }, "\u2297"), " marks an annulled match (it counts for nothing)."] : "", " The table below has the same numbers.")
    );
  }

  // The journal, newest first, paged downwards by seq.
  async function viewJournal(params) {
    const ladder = params.get("ladder");
    const limit = clampLimit(params.get("limit"), 25);
    const kind = JOURNAL_KINDS.includes(params.get("kind")) ? params.get("kind") : "";
    const summary = await api("GET", ladderPath(ladder));
    const before = parseInt(params.get("before") || "", 10) || summary.last_seq + 1;
    const page = await api("GET", ladderPath(ladder) + "/matches?before=" + before + "&limit=" + limit + (kind ? "&kind=" + kind : ""));
    const rows = page.entries.map((e) => {
      const inputs = e.inputs;
      const marks = [];
      if (e.annulled) marks.push(h("div", {}, h("span", { class: "tag annulled" }, "annulled"), " ", e.annul_reason || ""));
      if (e.corrected) marks.push(h("div", {}, h("span", { class: "tag corrected" }, "corrected"), " to ", resultOf(e.kind, e.corrected), h("span", { class: "muted" }, " (reported: " + resultOf(e.kind, inputs) + ")")));
      const actions = isAdmin() && MATCH_KINDS.includes(e.kind) && !e.annulled ? matchActions(ladder, e) : null;
      return h(
        "tr",
        { class: e.annulled ? "annulled" : null, "data-seq": e.seq },
        h("td", { class: "num" }, e.seq),
        h("td", { class: "hide-narrow" }, time(e.time)),
        h("td", {}, kindName(e.kind)),
        h("td", {}, e.id || ""),
        h("td", {}, describeEntry(e)),
        h("td", {}, marks),
        isAdmin() ? h("td", {}, actions) : null
      );
    });
    const headers = ["Seq", { text: "Time", attrs: { class: "hide-narrow" } }, "Kind", "Id", "What", "Marks"];
    if (isAdmin()) headers.push("Actions");
    const kinds = h(
      "select",
      { id: "kind", onchange: () => go({ ladder, view: "journal", kind: kinds.value, limit: params.get("limit") }) },
      h("option", { value: "" }, "every kind"),
      JOURNAL_KINDS.map((k) => h("option", { value: k, selected: k === kind }, kindName(k)))
    );
    const older = page.more && page.entries.length ? { ladder, view: "journal", kind, before: page.entries[page.entries.length - 1].seq, limit: params.get("limit") } : null;
    const newest = params.get("before") ? { ladder, view: "journal", kind, limit: params.get("limit") } : null;
    return h(
      "section",
      {},
      heading("Journal of " + ladder),
      h("p", { class: "muted" }, "Newest first. Annulled and corrected matches are marked with their reason or new result; the amendment is an entry of its own."),
      h("div", { class: "toolbar" }, h("div", {}, h("label", { for: "kind" }, "Kind"), kinds), limitSelect(limit, (value) => go({ ladder, view: "journal", kind, limit: value }))),
      page.pending ? h("p", { class: "muted" }, "Newer entries are being committed; they show once chained.") : null,
      page.entries.length ? table(headers, rows, { id: "journal" }) : h("p", {}, "No entries."),
      pager("Journal pages", ["\u2190 Newest", newest], ["Older \u2192", older])
    );
  }

  // Ended seasons.
  async function viewSeasons(params) {
    const ladder = params.get("ladder");
    const { seasons } = await api("GET", ladderPath(ladder) + "/seasons");
    const rows = seasons
      .slice()
      .reverse()
      .map((s) =>
        h(
          "tr",
          {},
          h("td", { class: "num" }, h("a", { href: link({ ladder, view: "season", season: s.season }) }, "Season " + s.season)),
          h("td", {}, time(s.ended)),
          h("td", { class: "num" }, count(s.players)),
          h("td", { class: "num" }, s.seq)
        )
      );
    return h(
      "section",
      {},
      heading("Ended seasons of " + ladder),
      seasons.length
        ? table(["Season", "Ended", { text: "Players", attrs: { class: "num" } }, { text: "Seq", attrs: { class: "num" } }], rows, { id: "seasons" })
        : h("p", {}, "No season has ended yet.")
    );
  }

  // An ended season's final standings, paged.
  async function viewSeason(params) {
    const ladder = params.get("ladder");
    const season = parseInt(params.get("season"), 10);
    const limit = clampLimit(params.get("limit"), 25);
    const offset = Math.max(0, parseInt(params.get("offset") || "0", 10) || 0);
    const page = await api("GET", ladderPath(ladder) + "/seasons/" + season + "/leaderboard?offset=" + offset + "&limit=" + limit);
    const rows = page.entries.map((e) =>
      h(
        "tr",
        {},
        h("td", { class: "num" }, e.rank),
        h("td", {}, e.player),
        h("td", { class: "num" }, rating(e.rating)),
        h("td", { class: "num" }, rating(e.peak_rating)),
        h("td", { class: "num" }, e.league),
        h("td", { class: "num hide-narrow" }, e.peak_league),
        h("td", { class: "num" }, e.games),
        h("td", { class: "num" }, e.wins)
      )
    );
    const previous = offset > 0 ? { ladder, view: "season", season, offset: Math.max(0, offset - limit), limit: params.get("limit") } : null;
    const next = page.entries.length === limit ? { ladder, view: "season", season, offset: offset + limit, limit: params.get("limit") } : null;
    const headers = [
      { text: "Rank", attrs: { class: "num" } },
      "Player",
      { text: "Rating", attrs: { class: "num" } },
      { text: "Peak", attrs: { class: "num" } },
      { text: "League", attrs: { class: "num" } },
      { text: "Peak league", attrs: { class: "num hide-narrow" } },
      { text: "Games", attrs: { class: "num" } },
      { text: "Wins", attrs: { class: "num" } },
    ];
    return h(
      "section",
      {},
      heading("Season " + season + " of " + ladder + ": final standings"),
      h("div", { class: "toolbar" }, limitSelect(limit, (value) => go({ ladder, view: "season", season, offset, limit: value }))),
      page.entries.length ? table(headers, rows, { id: "standings" }) : h("p", {}, "No lines on this page."),
      pager("Standings pages", ["\u2190 Better ranks", previous], ["Worse ranks \u2192", next])
    );
  }

  // The schedule and, for admin keys, changing it and ending the season now.
  async function viewSchedule(params) {
    const ladder = params.get("ladder");
    const summary = await api("GET", ladderPath(ladder));
    const fact = (label, value, id) => h("div", {}, h("dt", {}, label), h("dd", { id }, value));
    const parts = [
      heading("Schedule of " + ladder),
      h(
        "dl",
        { class: "facts" },
        fact("Season now", summary.season, "season-now"),
        fact("Season end (cron, UTC)", summary.schedule.season_end || "none", "cron-season-end"),
        fact("Next season end", time(summary.next.season_end), "next-season-end"),
        fact("Decay (cron, UTC)", summary.schedule.decay || "none", "cron-decay"),
        fact("Next decay", time(summary.next.decay), "next-decay"),
        fact("Rules at the next season end", summary.next_rules ? "new rules set" : "unchanged", "next-rules")
      ),
      h("p", { class: "muted" }, "Five-field cron expressions in UTC (minute hour day-of-month month day-of-week). Every server runs them once per scheduled time."),
    ];
    if (isAdmin()) parts.push(scheduleForm(ladder, summary), endSeasonSection(ladder, summary));
    return h("section", {}, parts);
  }

  // ---------------------------------------------------------------------------------------
  // Admin actions, each behind a confirmation that says what will change. They are built
  // only for admin keys: a read key's pages hold no such control at all.

  function matchActions(ladder, entry) {
    return h(
      "span",
      { class: "inline" },
      h("button", { type: "button", class: "small", "data-action": "annul", "data-match": entry.id, onclick: () => annul(ladder, entry) }, "Annul\u2026"),
      h("button", { type: "button", class: "small", "data-action": "correct", "data-match": entry.id, onclick: () => correct(ladder, entry) }, "Correct\u2026")
    );
  }

  // The journal entry at `seq` (the first of the ladder after seq - 1).
  async function entryAt(ladder, seq) {
    const page = await api("GET", ladderPath(ladder) + "/matches?after=" + (seq - 1) + "&limit=1");
    const entry = page.entries[0];
    if (!entry || entry.seq !== seq) throw new ApiError(404, "not_found", "journal entry " + seq + " is not (yet) readable");
    return entry;
  }

  // How many journal entries follow `seq`: all of them are replayed by an amendment.
  async function laterEntries(ladder, seq) {
    let after = seq;
    let total = 0;
    for (let page = 0; page < COUNT_PAGES; page++) {
      const answer = await api("GET", ladderPath(ladder) + "/matches?after=" + after + "&limit=" + COUNT_PAGE);
      total += answer.entries.length;
      if (!answer.more || !answer.entries.length) return { total, more: false };
      after = answer.entries[answer.entries.length - 1].seq;
    }
    return { total, more: true };
  }

  function laterText(later) {
    const n = later.more ? "more than " + count(later.total) : count(later.total);
    return (
      "Every later entry of this ladder is replayed: " +
      n +
      " later journal " +
      (later.total === 1 && !later.more ? "entry" : "entries") +
      ". Matches whose results change are re-rated, and the answer says how many; ratings, ranks and later season standings move with them."
    );
  }

  const dialog = document.getElementById("confirm");
  const dialogForm = document.getElementById("confirm-form");
  const dialogTitle = document.getElementById("confirm-title");
  const dialogBody = document.getElementById("confirm-body");
  const dialogWhat = document.getElementById("confirm-what");
  const dialogOk = document.getElementById("confirm-ok");
  let dialogAction = null;

  document.getElementById("confirm-cancel").addEventListener("click", () => dialog.close());
  dialog.addEventListener("close", () => {
    dialogAction = null;
  });
  dialogForm.addEventListener("submit", async (event) => {
    event.preventDefault();
    if (!dialogAction || dialogOk.disabled) return;
    const action = dialogAction;
    dialogOk.disabled = true;
    try {
      const message = await action();
      dialog.close();
      showError(null);
      showStatus(message);
      render();
    } catch (e) {
      if (e.status === 401) {
        dialog.close();
        signOut(explain(e));
        return;
      }
      dialogWhat.textContent = explain(e);
      dialogWhat.setAttribute("role", "alert");
    } finally {
      dialogOk.disabled = false;
    }
  });

  // Opens the confirmation: `fields` (inputs), `what` (a promise of the sentence saying what
  // will change; the button waits for it), and `run` (the request; its answer's summary).
  function confirmAction(title, okLabel, fields, what, run) {
    dialogTitle.textContent = title;
    clear(dialogBody);
    append(dialogBody, [fields]);
    dialogWhat.removeAttribute("role");
    dialogWhat.textContent = "Working out what will change\u2026";
    dialogOk.textContent = okLabel;
    dialogOk.disabled = true;
    dialogAction = run;
    showStatus("");
    dialog.showModal();
    const first = dialogBody.querySelector("input, textarea, select");
    (first || document.getElementById("confirm-cancel")).focus();
    Promise.resolve(what).then(
      (text) => {
        if (dialogAction !== run) return;
        dialogWhat.textContent = text;
        dialogOk.disabled = false;
      },
      (e) => {
        if (dialogAction !== run) return;
        dialogWhat.textContent = explain(e);
      }
    );
  }

  function annul(ladder, entry) {
    const reason = h("textarea", { id: "annul-reason", required: true, maxlength: "500" });
    const fields = [
      h("p", {}, "Match ", h("strong", {}, entry.id), " (seq " + entry.seq + ", " + kindName(entry.kind) + ") will count for nothing. Its players stay on the ladder."),
      h("label", { for: "annul-reason" }, "Reason (kept in the journal)"),
      reason,
    ];
    const what = laterEntries(ladder, entry.seq).then(laterText);
    confirmAction("Annul match " + entry.id, "Annul match", fields, what, async () => {
      const text = reason.value.trim();
      if (!text) throw refusal("Give a reason: it is kept in the journal.");
      const answer = await api("POST", ladderPath(ladder) + "/matches/" + enc(entry.id) + "/annul", { reason: text });
      return "Annulled " + entry.id + ": " + answer.rerated + " later matches re-rated, " + answer.players_changed + " players changed.";
    });
  }

  function correct(ladder, entry) {
    const pending = entryAt(ladder, entry.seq);
    const input = h("input", { id: "correct-result", type: "text", required: true, autocomplete: "off" });
    const help = h("p", { class: "muted", id: "correct-help" }, "Reading the match\u2026");
    const fields = [h("p", {}, "Match ", h("strong", {}, entry.id), " (seq " + entry.seq + ") will count with the result below, at its place."), h("label", { for: "correct-result" }, "Corrected result"), input, help];
    let original = null;
    const what = Promise.all([pending, laterEntries(ladder, entry.seq)]).then(([full, later]) => {
      original = full;
      const now = full.corrected || full.inputs;
      if (full.kind === "free_for_all") {
        input.value = (now.places || []).join(", ");
        help.textContent = "Places of " + full.inputs.entrants.join(", ") + ", in that order (1 = first; ties share a place).";
      } else {
        input.value = String(now.score_a);
        help.textContent = "score_a: side A's score, from 0 (lost) to 1 (won); " + describeInputs(full.kind, now) + " now.";
      }
      return "Now: " + resultOf(full.kind, now) + ". " + laterText(later);
    });
    confirmAction("Correct match " + entry.id, "Correct match", fields, what, async () => {
      if (!original) throw refusal("The match is still being read.");
      let body;
      if (original.kind === "free_for_all") {
        const places = input.value.split(/[\s,]+/).filter(Boolean).map(Number);
        if (places.some((p) => !Number.isInteger(p))) throw refusal("Places are whole numbers separated by commas.");
        body = { places };
      } else {
        const score = Number(input.value);
        if (input.value.trim() === "" || !Number.isFinite(score)) throw refusal("score_a is a number from 0 to 1.");
        body = { score_a: score };
      }
      const answer = await api("POST", ladderPath(ladder) + "/matches/" + enc(entry.id) + "/correct", body);
      return "Corrected " + entry.id + ": " + answer.rerated + " matches re-rated, " + answer.players_changed + " players changed.";
    });
  }

  function eraseSection(ladder, name) {
    return h(
      "section",
      { class: "admin", "aria-labelledby": "erase-title" },
      h("h2", { id: "erase-title" }, "Erase this player"),
      h("p", {}, "For a request to be forgotten. The name is replaced by a pseudonym everywhere; ratings, ranks and history stay."),
      h("button", { type: "button", class: "danger", "data-action": "erase", onclick: () => erase(ladder, name) }, "Erase " + name + "\u2026")
    );
  }

  function erase(ladder, name) {
    const typed = h("input", { id: "erase-name", type: "text", autocomplete: "off", required: true });
    const fields = [
      h("p", {}, h("strong", {}, name), " will be replaced by a pseudonym (erased-\u2026) in their player row and in every journal entry that names them. Their rating, rank, history and the hash chain do not change, and the name becomes free to join again as a new player."),
      h("p", {}, "The server keeps no link between the name and the pseudonym; copies made before (exports, backups) still hold the name."),
      h("label", { for: "erase-name" }, "Type the player's name to confirm"),
      typed,
    ];
    confirmAction("Erase player " + name, "Erase player", fields, Promise.resolve("This cannot be undone by the server."), async () => {
      if (typed.value !== name) throw refusal("The typed name is not " + name + ": nothing was erased.");
      const answer = await api("DELETE", ladderPath(ladder) + "/players/" + enc(name));
      history.replaceState(null, "", "#" + new URLSearchParams({ ladder, view: "player", player: answer.pseudonym }).toString());
      return "Erased " + name + ": now " + answer.pseudonym + ".";
    });
  }

  function scheduleForm(ladder, summary) {
    const seasonInput = h("input", { id: "schedule-season-end", type: "text", autocomplete: "off", value: summary.schedule.season_end || "", placeholder: "0 0 1 * *" });
    const decayInput = h("input", { id: "schedule-decay", type: "text", autocomplete: "off", value: summary.schedule.decay || "", placeholder: "0 4 * * *" });
    // A PUT replaces the whole schedule: the period end is sent too, so the form never drops it.
    const periodInput = h("input", { id: "schedule-period-end", type: "text", autocomplete: "off", value: summary.schedule.period_end || "", placeholder: "0 0 1 * *" });
    const form = h(
      "form",
      {
        id: "schedule-form",
        onsubmit: (event) => {
          event.preventDefault();
          const next = { season_end: seasonInput.value.trim() || null, decay: decayInput.value.trim() || null, period_end: periodInput.value.trim() || null };
          const line = (label, from, to) => h("li", {}, label + ": ", h("code", {}, from || "none"), " \u2192 ", h("code", {}, to || "none"), from === to ? " (unchanged)" : "");
          const fields = [
            h(
              "ul",
              { id: "schedule-changes" },
              line("Season end", summary.schedule.season_end, next.season_end),
              line("Decay", summary.schedule.decay, next.decay),
              line("Rating period end", summary.schedule.period_end, next.period_end)
            ),
            h("p", {}, "Next season end now: " + time(summary.next.season_end) + "; next decay now: " + time(summary.next.decay) + "."),
          ];
          confirmAction("Change the schedule of " + ladder, "Change schedule", fields, Promise.resolve("Every server runs the new schedule from its next look (once a second); the answer gives the next times."), async () => {
            const answer = await api("PUT", ladderPath(ladder) + "/schedule", next);
            return "Schedule changed: next season end " + time(answer.next.season_end) + ", next decay " + time(answer.next.decay) + ".";
          });
        },
      },
      h("div", { class: "field" }, h("label", { for: "schedule-season-end" }, "Season end (cron, UTC; empty for none)"), seasonInput),
      h("div", { class: "field" }, h("label", { for: "schedule-decay" }, "Decay (cron, UTC; empty for none)"), decayInput),
      h("div", { class: "field" }, h("label", { for: "schedule-period-end" }, "Rating period end (cron, UTC; empty for none; ladders with rating_periods)"), periodInput),
      h("button", { type: "submit", "data-action": "schedule" }, "Review the change\u2026")
    );
    return h("section", { class: "admin", "aria-labelledby": "schedule-title" }, h("h2", { id: "schedule-title" }, "Change the schedule"), form);
  }

  function endSeasonSection(ladder, summary) {
    return h(
      "section",
      { class: "admin", "aria-labelledby": "end-title" },
      h("h2", { id: "end-title" }, "End season " + summary.season + " now"),
      h("button", { type: "button", class: "danger", "data-action": "end-season", onclick: () => endSeason(ladder, summary) }, "End season " + summary.season + " now\u2026")
    );
  }

  function endSeason(ladder, summary) {
    // One id per confirmation: a retry of the same click applies once.
    const bytes = new Uint8Array(6);
    crypto.getRandomValues(bytes);
    const id = "console-season-end-" + summary.season + "-" + Array.from(bytes, (b) => b.toString(16).padStart(2, "0")).join("");
    const rules = summary.rules || {};
    const soft = rules.season_reset;
    const reset = soft
      ? "then the soft reset: each rating keeps " + soft.keep + " of its distance from " + String(soft.anchor).replace(/_/g, " ")
      : "with no soft reset in the rules (ratings stay)";
    const fields = [
      h(
        "p",
        {},
        "Season " + summary.season + " ends now for " + count(summary.players) + " players: their final standings are kept as season " + summary.season + ", " + reset + (summary.next_rules ? ", then the next rules take effect" : "") + ". Season " + (summary.season + 1) + " begins."
      ),
      h("p", {}, "The scheduled season end (" + time(summary.next.season_end) + ") stays scheduled."),
    ];
    confirmAction("End season " + summary.season + " of " + ladder, "End season now", fields, Promise.resolve("Every player's state changes at once; it cannot be undone."), async () => {
      const answer = await api("POST", ladderPath(ladder) + "/seasons/end", { id });
      return "Season " + answer.season + " ended (" + count(answer.players) + " players); season " + (answer.season + 1) + " has begun.";
    });
  }

  // ---------------------------------------------------------------------------------------
  // Start.

  // What the views of other files (queues.js, webhooks.js) build with; they register in
  // `window.eloConsoleViews` before this script runs.
  window.eloConsole = Object.freeze({ h, table, heading, api, link, time, rating, count, ladderPath, scope: () => (me ? me.scope : null) });

  takeKeyFromFragment();
  window.addEventListener("hashchange", () => {
    takeKeyFromFragment();
    showStatus("");
    focusOnRender = true;
    render();
  });
  render();
})();
