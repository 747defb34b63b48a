// `makruk serve`'s start-up: the store, the hub and its threads, the bus, push
// notifications, the listening socket, and a drain on SIGTERM.
#include <sys/resource.h>
#include <sys/stat.h>

#include <future>
#include <optional>
#include <iostream>
#include <thread>

#include "engine/egtb.h"
#include "server/net/http_server.h"
#include "server/net/net_detail.h"
#include "server/stores/backup.h"
#include "server/text.h"

namespace makruk::server {

using namespace net_detail;

int run_server(const ServerOptions& o) {
  // Each connection is a file descriptor: allow as many as the system lets
  // us, and keep the connection cap under that with room for the database,
  // push deliveries (32 requests and 8 kept connections at most) and the web
  // client's files.
  rlimit files;
  int max_connections = o.max_connections;
  if (getrlimit(RLIMIT_NOFILE, &files) == 0) {
    if (files.rlim_cur < files.rlim_max) {
      files.rlim_cur = files.rlim_max;
      setrlimit(RLIMIT_NOFILE, &files);
      getrlimit(RLIMIT_NOFILE, &files);
    }
    if (files.rlim_cur != RLIM_INFINITY) {
      const int limit = int(std::min<rlim_t>(files.rlim_cur, 1 << 30));
      const int room = std::max(1, limit - std::min(128, limit / 4));
      if (max_connections <= 0 || max_connections > room) max_connections = room;
    }
  }
  // The database holds push secrets and seat tokens' hashes: only the
  // server's user may read it.
  umask(077);
  std::error_code fsError;
  std::filesystem::create_directories(o.data_dir, fsError);
  if (fsError) {
    std::cerr << "makruk serve: cannot create data folder '" << o.data_dir << "': " << fsError.message() << "\n";
    return 1;
  }
  // One server per SQLite data folder (two would run the same tables apart), and no
  // restore beneath it (makruk restore takes the same lock).
  std::optional<DataFolderLock> folderLock;
  if (o.store.empty()) {
    folderLock.emplace(o.data_dir);
    if (!folderLock->held()) {
      std::cerr << "makruk serve: another server is running on the data folder '" << o.data_dir
                << "' (its makruk.lock is held)\n";
      return 1;
    }
  }
  for (const char* name : {"", "makruk.db", "makruk.db-wal", "makruk.db-shm", "vapid.pem", "makruk.lock"}) {
    const auto path = std::filesystem::path(o.data_dir) / name;
    if (std::filesystem::exists(path, fsError))
      std::filesystem::permissions(path,
                                   *name ? std::filesystem::perms::owner_read | std::filesystem::perms::owner_write
                                         : std::filesystem::perms::owner_all,
                                   fsError);
  }
  // The CPU players' endgame tables: three-piece ones only from files.
  const std::string egtbDir = o.egtb_dir.empty() ? (std::filesystem::path(o.data_dir) / "egtb").string() : o.egtb_dir;
  if (const int n = engine::egtb_set_path(egtbDir))
    std::cerr << "makruk serve: " << n << " three-piece endgame tables in " << egtbDir << "\n";
  std::vector<asio::ip::address> proxies;
  for (const std::string& a : o.trusted_proxies) {
    boost::system::error_code ec;
    proxies.push_back(Context::plain(asio::ip::make_address(a, ec)));
    if (ec) {
      std::cerr << "makruk serve: --trusted-proxy '" << a << "' is not an IP address\n";
      return 1;
    }
  }
  std::string publicUrl = o.public_url;
  if (!publicUrl.empty()) {
    while (publicUrl.size() > 1 && publicUrl.back() == '/') publicUrl.pop_back();
    if (webpush::origin_of(publicUrl) != lower(publicUrl)) {
      std::cerr << "makruk serve: --public-url must be an origin such as https://makruk.example\n";
      return 1;
    }
  }
  // The tables' store, and a second connection for the games' records (read
  // on their own threads, so never waiting for the tables' writes).
  std::unique_ptr<Store> store, records_store, community_store;
  try {
    store = open_store(o.store, o.data_dir, o.sqlite_full_sync);
    records_store = open_store(o.store, o.data_dir, o.sqlite_full_sync);
    community_store = open_store(o.store, o.data_dir, o.sqlite_full_sync);
  } catch (const std::exception& e) {
    std::cerr << "makruk serve: " << e.what() << "\n";
    return 1;
  }

  // Declared so that they go in a safe order at the end: the hub (and the
  // CPU threads posting to its executor) first, then the hub's queue (whose
  // work holds connections), then the network's queue, then the connection
  // counts that the connections give back.
  ConnectionGate gate(max_connections, o.max_connections_per_ip);
  asio::io_context net_ioc(o.threads);
  asio::io_context hub_ioc(1);
  auto hub_work = asio::make_work_guard(hub_ioc);
  Hub hub(
      *store, [&hub_ioc](std::function<void()> f) { asio::post(hub_ioc, std::move(f)); },
      [] {
        return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::system_clock::now().time_since_epoch())
            .count();
      },
      o.cpu_threads > 0 ? o.cpu_threads : std::max(1, int(std::thread::hardware_concurrency()) - o.threads - 1));
  // The tables' actions are written by threads of their own, each with its
  // own connection, in batches (one commit each); a table's go to one of
  // them, in order. Declared after the hub's queue, which their answers go
  // to, and before it (and the hub) go.
  std::unique_ptr<StoreWriter> writer;
  try {
    const int lanes = o.store_writers > 0 ? o.store_writers : is_postgres_url(o.store) ? 4 : 1;
    std::vector<std::unique_ptr<Store>> connections;
    for (int i = 0; i < lanes; ++i) connections.push_back(open_store(o.store, o.data_dir, o.sqlite_full_sync));
    writer = std::make_unique<StoreWriter>(std::move(connections),
                                           [&hub_ioc](std::function<void()> f) { asio::post(hub_ioc, std::move(f)); });
  } catch (const std::exception& e) {
    std::cerr << "makruk serve: " << e.what() << "\n";
    return 1;
  }
  hub.set_writer(writer.get());
  hub.set_limits(o.limits);  // before loading: searches resumed at start keep the time cap
  // The bus to the other instances (declared after the hub: its thread, which
  // posts to the hub, stops first).
  std::unique_ptr<Bus> bus;
  if (!o.bus.empty()) {
    try {
      bus = open_redis_bus(o.bus);
    } catch (const std::exception& e) {
      std::cerr << "makruk serve: " << e.what() << "\n";
      return 1;
    }
    hub.set_bus(bus.get());
  }
  // The feedback board and recommendations: a part of their own, with their
  // own store connection; their limits count across instances too.
  Community community(*community_store, [&hub] { return hub.now(); });  // the hub's clock (a test may move it)
  community.set_limits(o.limits.feedback_per_minute, o.limits.wrong_codes_per_minute);
  community.set_admin_secret(o.admin_secret);
  community.share_limits(bus.get());
  // However this function ends, the hub lets go of the bus before the bus goes.
  struct LetGoOfBus {
    Hub& hub;
    ~LetGoOfBus() { hub.set_bus(nullptr); }
  } let_go_of_bus{hub};
  try {
    hub.load();
  } catch (const std::exception& e) {
    std::cerr << "makruk serve: cannot load the database: " << e.what() << "\n";
    return 1;
  }
  if (o.test_clock) hub.enable_test_clock();
  hub.set_defer([&hub_ioc](int64_t ms, std::function<void()> f) {
    auto timer = std::make_shared<asio::steady_timer>(hub_ioc, std::chrono::milliseconds(ms));
    timer->async_wait([timer, f = std::move(f)](beast::error_code ec) {
      if (!ec) f();
    });
  });

  // Web Push: the VAPID key lives in the data folder; deliveries run on the
  // sender's thread, and a gone subscription is dropped on the hub's.
  std::unique_ptr<webpush::Sender> sender;
  try {
    webpush::KeyPair vapid = webpush::load_or_create_vapid(o.data_dir);
    std::string publicKey = webpush::b64url_encode(vapid.public_raw());
    webpush::SenderOptions so;
    so.subject = o.push_subject;
    so.allow_private = o.push_allow_http;  // tests: a push service on loopback
    sender = std::make_unique<webpush::Sender>(std::move(vapid), so, [&hub_ioc, &hub](const std::string& endpoint) {
      asio::post(hub_ioc, [&hub, endpoint] { hub.notices().drop(endpoint); });
    });
    hub.set_push(publicKey, [s = sender.get()](webpush::Delivery d) { s->send(std::move(d)); }, o.push_allow_http);
  } catch (const std::exception& e) {
    std::cerr << "makruk serve: push notifications: " << e.what() << "\n";
    return 1;
  }

  // Work on the hub's thread every `period`, until its timer is cancelled.
  struct Every {
    asio::steady_timer timer;
    std::chrono::milliseconds period;
    std::function<void()> work;
    void arm() {
      timer.expires_after(period);
      timer.async_wait([this](beast::error_code ec) {
        if (ec) return;
        work();
        arm();
      });
    }
  };
  // Turn-based tables end after 45 days without a move: look every minute
  // (and at once).
  Every ticks{asio::steady_timer(hub_ioc), std::chrono::minutes(1), [&] {
                hub.tick();
                community.sweep();
              }};
  asio::post(hub_ioc, [&] {
    hub.tick();
    ticks.arm();
  });
  // With other instances: CPU turns whose instance died are taken over, and
  // who is at each table is said again now and then.
  Every scans{asio::steady_timer(hub_ioc), std::chrono::seconds(5), [&] {
                hub.scan_cpu();
                hub.heartbeat();
              }};
  if (bus) asio::post(hub_ioc, [&] { scans.arm(); });
  std::vector<std::string> origins;
  for (const std::string& origin : o.allowed_origins) origins.push_back(lower(origin));

  tcp::acceptor acceptor(net_ioc);
  try {
    tcp::endpoint ep(asio::ip::make_address(o.address), o.port);
    acceptor.open(ep.protocol());
    acceptor.set_option(asio::socket_base::reuse_address(true));
    acceptor.bind(ep);
    acceptor.listen(asio::socket_base::max_listen_connections);
  } catch (const std::exception& e) {
    std::cerr << "makruk serve: cannot listen on " << o.address << ":" << o.port << ": " << e.what() << "\n";
    return 1;
  }
  if (publicUrl.empty()) {
    std::string host = o.address == "0.0.0.0" || o.address == "::" ? "localhost" : o.address;
    if (host.find(':') != std::string::npos) host = "[" + host + "]";
    publicUrl = "http://" + host + ":" + std::to_string(acceptor.local_endpoint().port());
  }
  GameRecords records(
      *records_store, [&hub](const std::string& ip, bool wrong) { return hub.code_guess_allowed(ip, wrong); },
      lower(publicUrl));
  std::vector<std::string> hosts{host_of_url(publicUrl)};
  for (const std::string& origin : origins) hosts.push_back(host_of_url(origin));
  routes::Parts parts{hub, community, seat_check_through(hub_ioc, hub)};
  Context ctx{hub_ioc, hub, parts, records, o.web_dir, lower(publicUrl), std::move(proxies), std::move(origins),
              std::move(hosts), o.hello_timeout_ms, gate, o.ws_deflate, {}, {}, {}};
  ctx.push = sender.get();
  ctx.ws_idle_ms = o.ws_idle_ms;
  ctx.renders_per_minute = o.limits.pictures_per_minute;
  asio::co_spawn(net_ioc, listen(acceptor, ctx), asio::detached);

  // SIGTERM or SIGINT drains: no new connection, every WebSocket gets what it
  // was sent and then "going away" (1001), answers in progress are written
  // without keep-alive; after at most --drain-seconds the network stops, the
  // hub finishes what it was given (its writes included), and the process
  // exits 0.
  asio::signal_set signals(net_ioc, SIGINT, SIGTERM);
  asio::steady_timer drain_timer(net_ioc);
  const auto drain_deadline_after = std::chrono::milliseconds(o.drain_ms);
  std::function<void(Clock::time_point)> wait_drained = [&](Clock::time_point deadline) {
    if (gate.open() == 0 || Clock::now() >= deadline) return net_ioc.stop();
    drain_timer.expires_after(std::chrono::milliseconds(20));
    drain_timer.async_wait([&, deadline](beast::error_code ec) {
      if (!ec) wait_drained(deadline);
    });
  };
  signals.async_wait([&](beast::error_code ec, int) {
    if (ec) return;
    ctx.draining = true;
    beast::error_code ignored;
    acceptor.close(ignored);
    for (auto& session : ctx.sessions.all()) go_away(*session);
    ctx.http_conns.close_idle();
    wait_drained(Clock::now() + drain_deadline_after);
  });

  std::cout << "makruk serve: http://" << (o.address == "0.0.0.0" ? "localhost" : o.address) << ":"
            << acceptor.local_endpoint().port() << " (data in " << o.data_dir << ", " << hub.table_count()
            << " tables opened at start)" << std::endl;
  std::thread hub_thread([&] { hub_ioc.run(); });
  std::vector<std::thread> net_threads;
  for (int i = 1; i < o.threads; ++i) net_threads.emplace_back([&] { net_ioc.run(); });
  net_ioc.run();
  for (auto& t : net_threads) t.join();
  // Whatever reached the hub before now is handled (and stored) before it stops.
  auto handled = std::make_shared<std::promise<void>>();
  asio::post(hub_ioc, [handled, &ticks, &scans] {
    ticks.timer.cancel();
    scans.timer.cancel();
    handled->set_value();
  });
  handled->get_future().wait_for(std::chrono::seconds(10));
  // The actions given to the writer are stored, and what follows them (the
  // other instances told) done, before the hub stops.
  if (writer->wait_idle(10000)) {
    auto followed = std::make_shared<std::promise<void>>();
    asio::post(hub_ioc, [followed] { followed->set_value(); });
    followed->get_future().wait_for(std::chrono::seconds(10));
  }
  hub_work.reset();
  hub_ioc.stop();
  hub_thread.join();
  sender.reset();  // before the hub it posts to
  return 0;
}

}  // namespace makruk::server

