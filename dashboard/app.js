// The dashboard's entry point: sign-in (the token is kept in sessionStorage), one session per token
// (the home kept by a Watch stream, the pages), and a hash router (#/home, #/drivers, #/metrics).
//
// window.hearth exposes the session ({home, watcher, hub}) for the browser test and for curious people
// with a console; nothing on the page depends on it.
import { Api } from "./api.js";
import { Status } from "./grpcweb.js";
import { Home, Watcher } from "./store.js";
import { HomePage } from "./home.js";
import { DriversPage } from "./drivers.js";
import { MetricsPage } from "./metrics.js";

const TOKEN_KEY = "hearth.token";
const $ = (selector) => document.querySelector(selector);
let session = null;

function showPage(name) {
  for (const page of document.querySelectorAll(".page")) page.hidden = page.id !== `page-${name}`;
  for (const link of document.querySelectorAll("nav a")) link.classList.toggle("active", link.getAttribute("href") === `#/${name}`);
  $("#top").hidden = name === "signin";
}

function showSignIn(message) {
  if (session) endSession();
  showPage("signin");
  const error = $("[data-testid=signin-error]");
  error.hidden = !message;
  error.textContent = message || "";
  $("#token").focus();
}

function endSession() {
  session.abort.abort();
  session.home_.destroy();
  session.watcher.stop();
  session.drivers.hide();
  session.metrics.hide();
  session = null;
  window.hearth = null;
}

/** Checks the token with GetHub; starts a session or shows why not. */
async function signIn(token) {
  const api = new Api(token);
  let hub;
  try {
    hub = await api.getHub();
  } catch (error) {
    if (error.code === Status.UNAUTHENTICATED) sessionStorage.removeItem(TOKEN_KEY);
    showSignIn(`Sign-in failed: ${error.message}`);
    return;
  }
  sessionStorage.setItem(TOKEN_KEY, token);
  startSession(api, hub, token);
}

function startSession(api, hub, token) {
  const home = new Home();
  const watcher = new Watcher(home, token);
  const abort = new AbortController();
  const ctx = { home, api, admin: () => hub.admin, token: () => token, signal: abort.signal };
  session = {
    hub, home, watcher, abort,
    home_: new HomePage($("#page-home"), ctx),
    drivers: new DriversPage($("#page-drivers"), ctx),
    metrics: new MetricsPage($("#page-metrics"), ctx),
  };
  window.hearth = { home, watcher, hub };
  $("[data-testid=user]").textContent = `${hub.user}${hub.admin ? " (admin)" : ""}`;
  const status = $("[data-testid=watch-status]");
  watcher.addEventListener("state", (e) => {
    const { state, detail } = e.detail;
    status.dataset.state = state;
    status.textContent = { live: "live", loading: "loading…", resuming: "resuming…", reconnecting: "reconnecting…", refused: "refused" }[state] || state;
    status.title = detail || "The watch stream";
    status.dataset.streams = watcher.stats.streams;
    status.dataset.resumes = watcher.stats.resumes;
    status.dataset.relists = watcher.stats.relists;
  });
  watcher.addEventListener("refused", (e) => showSignIn(`Signed out: ${e.detail.message}`));
  watcher.start();
  route();
}

function route() {
  if (!session) return;
  const name = (location.hash.replace(/^#\//, "") || "home").split("/")[0];
  const page = ["home", "drivers", "metrics"].includes(name) ? name : "home";
  showPage(page);
  if (page === "home") session.home_.show();
  if (page === "drivers") session.drivers.show(); else session.drivers.hide();
  if (page === "metrics") session.metrics.show(); else session.metrics.hide();
}

window.addEventListener("hashchange", route);
$("#signin-form").addEventListener("submit", (e) => {
  e.preventDefault();
  const token = $("#token").value.trim();
  if (token) signIn(token);
});
$("#sign-out").addEventListener("click", () => {
  sessionStorage.removeItem(TOKEN_KEY);
  showSignIn("");
});

const saved = sessionStorage.getItem(TOKEN_KEY);
if (saved) signIn(saved);
else showSignIn("");
