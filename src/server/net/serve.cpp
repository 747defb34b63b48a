// `makruk serve`'s start-up: the store, the hub and its threads, the bus, push
// notifications, the listening socket, and a drain on SIGTERM.
#include <sys/resource.h>
#include <sys/stat.h>

#include <deque>
#include <future>
#include <optional>
#include <iostream>
#include <thread>

#include "engine/egtb.h"
#include "server/net/http_server.h"
#include "server/net/net_detail.h"
#include "server/buses/bus_local.h"
#include "server/tournaments/tournaments.h"
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
  std::unique_ptr<Store> store, records_store, community_store, tournaments_store;
  try {
    store = open_store(o.store, o.data_dir, o.sqlite_full_sync);
    records_store = open_store(o.store, o.data_dir, o.sqlite_full_sync);
    community_store = open_store(o.store, o.data_dir, o.sqlite_full_sync);
    tournaments_store = open_store(o.store, o.data_dir, o.sqlite_full_sync);
  } catch (const std::exception& e) {
    std::cerr << "makruk serve: " << e.what() << "\n";
    return 1;
  }

  // Declared so that they go in a safe order at the end: the hubs (and the
  // CPU threads posting to their executors) first, then their queues (whose
  // work holds connections), then the network's queue, then the connection
  // counts that the connections give back.
  ConnectionGate gate(max_connections, o.max_connections_per_ip);
  asio::io_context net_ioc(o.threads);
  // The tables are shared by code among the hubs (Hub::set_shard), each on
  // a thread of its own, so that a table never waits for another's work at
  // another hub. Without Redis, the hubs tell each other what they change
  // over a bus in memory (declared before them: their buses hold it).
  const size_t shards = o.hub_threads > 0
                            ? size_t(o.hub_threads)
                            : std::clamp<size_t>(std::thread::hardware_concurrency() / 4, 1, 8);
  std::unique_ptr<LocalBuses> local_buses;
  // An executor of a part's own, on a thread of its own (a hub's, the lobby's,
  // turn notifications').
  struct PartThread {
    asio::io_context ioc{1};
    asio::executor_work_guard<asio::io_context::executor_type> work = asio::make_work_guard(ioc);
    Hub::Post post() {
      return [this](std::function<void()> f) { asio::post(ioc, std::move(f)); };
    }
    // Runs what reached it before now (waiting 10 s at most).
    void drain() {
      std::promise<void> done;
      asio::post(ioc, [&done] { done.set_value(); });
      done.get_future().wait_for(std::chrono::seconds(10));
    }
    void drain_and_stop(std::thread& runner) {
      drain();
      work.reset();
      ioc.stop();
      runner.join();
    }
  };
  struct HubThread : PartThread {
    std::unique_ptr<Hub> hub;
  };
  std::deque<HubThread> hubs(shards);
  // The engine's threads: the cores the network and the hubs leave, one pool
  // the hubs share (fair between addresses over all of them). Declared after
  // the hubs, whose CPU players its searches' answers go through, so that it
  // stops before they go.
  const int cpu_threads = o.cpu_threads > 0 ? o.cpu_threads
                                            : std::max(1, int(std::thread::hardware_concurrency()) - o.threads - int(shards));
  CpuPool cpu_pool(cpu_threads);
  for (size_t i = 0; i < shards; ++i) {
    hubs[i].hub = std::make_unique<Hub>(
        *store, hubs[i].post(),
        [] {
          return std::chrono::duration_cast<std::chrono::milliseconds>(
                     std::chrono::system_clock::now().time_since_epoch())
              .count();
        },
        cpu_threads, &cpu_pool);
    hubs[i].hub->set_shard(i, shards);
    if (i > 0) hubs[i].hub->count_with(*hubs.front().hub);  // one count per address for the process
  }
  Hub& hub = *hubs.front().hub;  // the first: the clock, the games' records' code limit
  auto on_shard = [&hubs](size_t shard, std::function<void(Hub&)> work) {
    HubThread& there = hubs.at(shard);
    asio::post(there.ioc, [&there, work = std::move(work)] { work(*there.hub); });
  };
  // Delayed work on an executor (a hub's, the lobby's).
  auto defer_on = [](asio::io_context& ioc) {
    return [&ioc](int64_t ms, std::function<void()> f) {
      auto timer = std::make_shared<asio::steady_timer>(ioc, std::chrono::milliseconds(ms));
      timer->async_wait([timer, f = std::move(f)](beast::error_code ec) {
        if (!ec) f();
      });
    };
  };
  // Finding an opponent: the lobby, on a thread of its own (never a
  // table's), asks the hubs to make the tables it pairs, each hub in turn.
  // Declared before the buses, whose answers are posted to it; so are turn
  // notifications' thread and the writer's answers to it.
  PartThread lobby_thread, notices_thread, tournaments_thread;
  Lobby lobby(Hub::lobby_tables(hub, shards, on_shard), [&hub] { return hub.now(); }, lobby_thread.post());
  lobby.set_limits(o.limits.lobby());
  lobby.set_defer(defer_on(lobby_thread.ioc));
  for (auto& h : hubs) h.hub->set_lobby(&lobby);
  // The tables' actions are written by threads of their own, each with its
  // own connection, in batches (one commit each); a table's go to one of
  // them, in order. Declared after the hubs' queues, which their answers go
  // to, and before them (and the hubs) go. Each hub has its own view of the
  // one writer, whose answers come back to its thread.
  std::vector<std::unique_ptr<StoreWriter>> writer_views;  // go after the writer, whose last answers they carry
  std::unique_ptr<StoreWriter> writer;
  try {
    const int lanes = o.store_writers > 0 ? o.store_writers : is_postgres_url(o.store) ? 4 : 1;
    std::vector<std::unique_ptr<Store>> connections;
    for (int i = 0; i < lanes; ++i) connections.push_back(open_store(o.store, o.data_dir, o.sqlite_full_sync));
    writer = std::make_unique<StoreWriter>(std::move(connections), hubs.front().post());
  } catch (const std::exception& e) {
    std::cerr << "makruk serve: " << e.what() << "\n";
    return 1;
  }
  for (size_t i = 0; i < shards; ++i) {
    if (i > 0) writer_views.push_back(std::make_unique<StoreWriter>(*writer, hubs[i].post()));
    hubs[i].hub->set_writer(i == 0 ? writer.get() : writer_views.back().get());
    hubs[i].hub->set_limits(o.limits);  // before loading: searches resumed at start keep the time cap
  }
  // Turn notifications (push subscriptions and deliveries, My games): one
  // for the process, on a thread of its own; it asks the seats that tokens
  // hold of the hubs holding the tables, and reads and writes through the
  // writer. The hubs tell it what their turn-based tables' actions mean.
  writer_views.push_back(std::make_unique<StoreWriter>(*writer, notices_thread.post()));
  TurnNotices notices(Hub::notices_tables(shards, on_shard), [&hub] { return hub.now(); }, notices_thread.post());
  notices.set_writer(writer_views.back().get());
  notices.set_limits(o.limits.notices());
  for (auto& h : hubs) h.hub->set_notices(&notices);
  // The bus to the other instances, one connection for each hub (declared
  // after the hubs: its threads, which post to them, stop first); or, for
  // hubs of this process alone, the one in memory.
  std::vector<std::unique_ptr<Bus>> buses;
  try {
    if (shards > 1) local_buses = std::make_unique<LocalBuses>();
    for (size_t i = 0; i < shards && (local_buses || !o.bus.empty()); ++i) {
      if (o.bus.empty()) buses.push_back(local_buses->attach("hub-" + std::to_string(i)));
      else if (!local_buses) buses.push_back(open_redis_bus(o.bus));
      else buses.push_back(local_buses->attach_beside(open_redis_bus(o.bus)));
    }
  } catch (const std::exception& e) {
    std::cerr << "makruk serve: " << e.what() << "\n";
    return 1;
  }
  for (size_t i = 0; i < buses.size(); ++i) hubs[i].hub->set_bus(buses[i].get());
  // With other instances the lobby's queue is shared on Redis (through the
  // first hub's connection); the hubs of one process share the one lobby.
  if (!o.bus.empty()) {
    lobby.set_bus(buses.front().get());
    notices.set_bus(buses.front().get());
  }
  // The feedback board and recommendations: a part of their own, with their
  // own store connection; their limits count across instances too.
  Community community(*community_store, [&hub] { return hub.now(); });  // the hub's clock (a test may move it)
  // Tournaments, on a thread of their own with a store connection of their
  // own; the hubs tell them when a tournament's game ends.
  Tournaments tournaments(*tournaments_store,
                          Tournaments::Gate{[&hub](const std::string& ip) { return hub.count_table(ip); },
                                            [&hub](const std::string& ip, bool wrong) {
                                              return hub.code_guess_allowed(ip, wrong);
                                            }},
                          [&hub] { return hub.now(); });
  if (!o.bus.empty()) tournaments.set_bus(buses.front().get());
  // A turn-based tournament's new game: White is told it is their turn,
  // against Black (as after Black's move).
  tournaments.set_new_game([&notices](const Table& table) { notices.notify(table, 1, "start"); });
  for (auto& h : hubs)
    h.hub->set_tournament_games([&tournaments_thread, &tournaments](const std::string& ref, Result result) {
      asio::post(tournaments_thread.ioc, [&tournaments, ref, result] { tournaments.game_over(ref, result); });
    });
  community.set_limits(o.limits.feedback_per_minute, o.limits.wrong_codes_per_minute);
  community.set_admin_secret(o.admin_secret);
  community.share_limits(o.bus.empty() ? nullptr : buses.front().get());
  // However this function ends, the hubs let go of the buses before the buses go.
  struct LetGoOfBus {
    std::deque<HubThread>& hubs;
    Lobby& lobby;
    TurnNotices& notices;
    ~LetGoOfBus() {
      for (auto& h : hubs) h.hub->set_bus(nullptr);
      lobby.set_bus(nullptr);
      notices.set_bus(nullptr);
    }
  } let_go_of_bus{hubs, lobby, notices};
  // The tables where the CPU owes a reply, asked of the store once: each hub
  // opens its own. Later lists (expiries, CPU turns another instance left)
  // are asked by the first hub, which hands each hub its own.
  size_t opened = 0;
  std::vector<std::string> cpu_turns;
  for (auto& h : hubs) h.hub->set_on_shard(on_shard);
  for (auto& h : hubs) {
    try {
      if (&h == &hubs.front()) cpu_turns = h.hub->cpu_turns_at_start();
      h.hub->load(cpu_turns);
    } catch (const std::exception& e) {
      std::cerr << "makruk serve: cannot load the database: " << e.what() << "\n";
      return 1;
    }
    opened += h.hub->table_count();
    h.hub->set_defer(defer_on(h.ioc));
  }
  // The test clock is one for all the hubs; moving it at one ticks them all.
  if (o.test_clock)
    for (auto& h : hubs) {
      h.hub->enable_test_clock();
      h.hub->share_clock(hub, [&hubs, self = h.hub.get()] {
        for (auto& other : hubs)
          if (other.hub.get() != self) asio::post(other.ioc, [&other] { other.hub->tick(); });
      });
    }

  // Web Push: the VAPID key lives in the data folder; deliveries run on the
  // sender's thread, and a gone subscription is dropped on turn
  // notifications'.
  std::unique_ptr<webpush::Sender> sender;
  try {
    webpush::KeyPair vapid = webpush::load_or_create_vapid(o.data_dir);
    std::string publicKey = webpush::b64url_encode(vapid.public_raw());
    webpush::SenderOptions so;
    so.subject = o.push_subject;
    so.allow_private = o.push_allow_http;  // tests: a push service on loopback
    // A delivery that failed is told on the standard error with its push
    // service and the last answer, at most five a minute (a broken service
    // must not flood the log; /metrics counts them all). On the sender's
    // thread only.
    struct Failures {
      std::chrono::steady_clock::time_point since;
      int told = 0, untold = 0;
    };
    auto failures = std::make_shared<Failures>();
    auto failed = [failures](const std::string& endpoint, int status, int attempts) {
      if (webpush::finished_as(status) != webpush::Finished::Failed) return;
      Failures& f = *failures;
      const auto now = std::chrono::steady_clock::now();
      if (now - f.since >= std::chrono::minutes(1)) {
        if (f.untold) std::cerr << "makruk serve: " << f.untold << " more pushes failed in the minute before\n";
        f = Failures{now, 0, 0};
      }
      if (f.told++ >= 5) return void(++f.untold);
      std::cerr << "makruk serve: push to " << webpush::origin_of(endpoint) << " failed: "
                << (attempts == 0 ? std::string("not tried (too many waiting, or the subscription unusable)")
                                  : (status ? "answered " + std::to_string(status) : std::string("no answer")) +
                                        " after " + std::to_string(attempts) + " attempts")
                << "\n";
    };
    sender = std::make_unique<webpush::Sender>(
        std::move(vapid), so,
        [&notices_thread, &notices](const std::string& endpoint) {
          asio::post(notices_thread.ioc, [&notices, endpoint] { notices.drop(endpoint); });
        },
        failed);
    notices.set_push(publicKey, [s = sender.get()](webpush::Delivery d) { s->send(std::move(d)); },
                     o.push_allow_http);
  } catch (const std::exception& e) {
    std::cerr << "makruk serve: push notifications: " << e.what() << "\n";
    return 1;
  }

  // Work on a hub's thread every `period`, until its timer is cancelled.
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
  // (and at once). With other instances: CPU turns whose instance died are
  // taken over, and who is at each table is said again now and then.
  std::deque<Every> timers;
  for (auto& h : hubs) {
    Hub& each = *h.hub;
    const bool first = &each == &hub;
    Every& ticks = timers.emplace_back(Every{asio::steady_timer(h.ioc), std::chrono::minutes(1),
                                             [&each, &community, &notices, first] {
                                               each.tick();
                                               if (!first) return;
                                               community.sweep();
                                               notices.sweep(each.now());
                                             }});
    asio::post(h.ioc, [&each, &ticks] {
      each.tick();
      ticks.arm();
    });
    if (buses.empty()) continue;
    Every& scans = timers.emplace_back(Every{asio::steady_timer(h.ioc), std::chrono::seconds(5), [&each] {
                                               each.scan_cpu();
                                               each.heartbeat();
                                             }});
    asio::post(h.ioc, [&scans] { scans.arm(); });
  }
  // Arenas end on time, and the tournaments' games under way are looked at.
  Every& tournament_ticks = timers.emplace_back(
      Every{asio::steady_timer(tournaments_thread.ioc), std::chrono::seconds(5), [&tournaments] { tournaments.tick(); }});
  asio::post(tournaments_thread.ioc, [&tournament_ticks] { tournament_ticks.arm(); });
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
  std::vector<HubShard::Ref> refs;
  for (auto& h : hubs) refs.push_back({&h.ioc, h.hub.get()});
  std::deque<routes::Parts> parts;
  std::vector<HubShard> shard_list;
  for (auto& h : hubs) {
    parts.push_back(routes::Parts{*h.hub, community, seat_check_through(refs), lobby, notices, tournaments});
    shard_list.push_back(HubShard{h.ioc, *h.hub, parts.back()});
  }
  Context ctx{std::move(shard_list), writer.get(), records, o.web_dir, lower(publicUrl), std::move(proxies),
              std::move(origins), std::move(hosts), o.hello_timeout_ms, gate, o.ws_deflate, {}, {}, {}};
  ctx.push = sender.get();
  ctx.lobby = Hearer{&lobby_thread.ioc, &lobby};
  ctx.notices = &notices_thread.ioc;
  ctx.tournaments = &tournaments_thread.ioc;
  ctx.ws_idle_ms = o.ws_idle_ms;
  ctx.renders_per_minute = o.limits.pictures_per_minute;
  asio::co_spawn(net_ioc, listen(acceptor, ctx), asio::detached);

  // SIGTERM or SIGINT drains: no new connection, every WebSocket gets what it
  // was sent and then "going away" (1001), answers in progress are written
  // without keep-alive; after at most --drain-seconds the network stops, the
  // hubs finish what they were given (their writes included), and the process
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
            << acceptor.local_endpoint().port() << " (data in " << o.data_dir << ", " << opened
            << " tables opened at start)" << std::endl;
  std::vector<std::thread> hub_threads;
  for (auto& h : hubs) hub_threads.emplace_back([&h] { h.ioc.run(); });
  std::thread lobby_runner([&lobby_thread] { lobby_thread.ioc.run(); });
  std::thread notices_runner([&notices_thread] { notices_thread.ioc.run(); });
  std::thread tournaments_runner([&tournaments_thread] { tournaments_thread.ioc.run(); });
  std::vector<std::thread> net_threads;
  for (int i = 1; i < o.threads; ++i) net_threads.emplace_back([&] { net_ioc.run(); });
  net_ioc.run();
  for (auto& t : net_threads) t.join();
  // Whatever reached the lobby or turn notifications before now is handed
  // on, and whatever reached a hub is handled (and stored), before they stop.
  lobby_thread.drain();
  notices_thread.drain();
  auto all_on = [&hubs](std::function<void()> f) {
    std::vector<std::future<void>> done;
    for (auto& h : hubs) {
      auto p = std::make_shared<std::promise<void>>();
      done.push_back(p->get_future());
      asio::post(h.ioc, [p, f] {
        f();
        p->set_value();
      });
    }
    for (auto& d : done) d.wait_for(std::chrono::seconds(10));
  };
  all_on([] {});
  for (auto& t : timers) asio::post(t.timer.get_executor(), [&t] { t.timer.cancel(); });
  all_on([] {});
  // The actions given to the writer are stored, and what follows them (the
  // other instances told) done, before the hubs stop.
  if (writer->wait_idle(10000)) all_on([] {});
  lobby_thread.drain_and_stop(lobby_runner);
  notices_thread.drain_and_stop(notices_runner);
  tournaments_thread.drain_and_stop(tournaments_runner);
  for (auto& h : hubs) {
    h.work.reset();
    h.ioc.stop();
  }
  for (auto& t : hub_threads) t.join();
  sender.reset();  // before the hubs it posts to
  return 0;
}

}  // namespace makruk::server
