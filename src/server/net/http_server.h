// `makruk serve`: the web client, the JSON API and the WebSocket endpoint.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "server/tables/hub.h"

namespace makruk::server {

struct ServerOptions {
  std::string address = "0.0.0.0";
  uint16_t port = 8080;
  std::string data_dir = "data";
  std::string egtb_dir;  // three-piece endgame tables (makruk egtb --save); empty: data_dir/egtb
  std::string store;  // a postgresql:// URL; empty: SQLite in data_dir
  std::string bus;    // a redis:// URL for instances sharing the store; empty: one process
  bool sqlite_full_sync = false;  // SQLite: every commit reaches the disk (synchronous=FULL)
  int store_writers = 0;  // connections (threads) writing actions; 0: 1 for SQLite, 4 for PostgreSQL
  std::string web_dir = "web/dist";
  int threads = 2;      // network threads
  int hub_threads = 0;  // threads serving tables, each holding the tables of its codes (Hub::set_shard); 0: a quarter of the cores, 1 to 8
  int cpu_threads = 0;  // engine searches for CPU opponents; 0: the cores the network and hub threads leave, at least 1
  std::string push_subject = "mailto:admin@localhost";  // VAPID contact for push services
  bool push_allow_http = false;  // accept plain-http push endpoints (tests)
  bool test_clock = false;       // POST /api/test/clock moves the clock (tests)

  // Budgets against hostile clients (0: unlimited). The overall connection
  // cap is also kept under the process's open-file limit.
  int max_connections = 20000;
  int max_connections_per_ip = 100;  // not applied to trusted proxies
  int hello_timeout_ms = 5000;       // a WebSocket must join a table this soon
  int ws_idle_ms = 60000;            // a WebSocket from which nothing came this long is closed (pinged at half)
  bool ws_deflate = true;            // offer permessage-deflate to WebSocket clients
  int drain_ms = 5000;               // on SIGTERM, how long connections get to finish
  std::string admin_secret;          // unlocks the feedback board's admin side; empty: off
  HubLimits limits;

  // The address links (QR codes, calendar events) point to; empty: made from
  // the listening address. The Host header is never used for links.
  std::string public_url;
  // Peers whose X-Forwarded-For names the client (a reverse proxy in front).
  std::vector<std::string> trusted_proxies;
  // Origins besides the public URL's and the request's own host that may open
  // WebSockets and POST to the API from a browser.
  std::vector<std::string> allowed_origins;
};

// Runs until SIGINT or SIGTERM. Returns the process exit code.
int run_server(const ServerOptions& options);

}  // namespace makruk::server
