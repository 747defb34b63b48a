#include "server/tables/cpu_players.h"

#include <memory>

namespace makruk::server {

namespace {

// At most this many turns whose lease ran out are taken over by one scan.
constexpr int CPU_TURNS_PER_SCAN = 1000;

}  // namespace

CpuPlayers::CpuPlayers(Tables tables, std::function<int64_t()> now, Post post, int threads, CpuPool* shared)
    : tables_(std::move(tables)),
      now_(std::move(now)),
      post_(std::move(post)),
      rng_(random_seed()),
      pool_(shared),
      own_pool_(shared ? nullptr : std::make_unique<CpuPool>(threads)) {
  if (!pool_) pool_ = own_pool_.get();
}

void CpuPlayers::set_bus(Bus* bus) {
  shared_ = bus != nullptr;
  creates_.share(bus, "cpu");
}

std::optional<CpuPlayers::Refusal> CpuPlayers::may_create(const std::string& ip, int64_t now) {
  if (!creates_.allow(ip, now, limits_.per_minute, false)) return Refusal{Outcome::RateLimited, Msg::LimitCpuTables};
  if ((limits_.queue && pool_->pending() >= limits_.queue) ||
      (limits_.queue_per_address && pool_->pending_for(ip) >= limits_.queue_per_address))
    return Refusal{Outcome::Unavailable, Msg::CpuBusy};
  return std::nullopt;
}

void CpuPlayers::created(const std::string& code, const std::string& ip, int64_t at) {
  creates_.allow(ip, at, limits_.per_minute);
  owner_[code] = ip;
}

void CpuPlayers::maybe_play(Table& p) {
  if (!p.game() || !cpu_to_act(*p.game(), p.cpu_level()) || busy_.count(p.code())) return;
  if (!shared_) return search(p);
  // Instances sharing the store: the one that claims the turn searches it.
  // The claim is written on the table's lane (after its writes); the table
  // counts as busy meanwhile, so that it is claimed once.
  const std::string code = p.code();
  const int64_t t = now_(), until = t + limits_.max_ms + CPU_LEASE_MARGIN_MS;
  auto claimed = std::make_shared<bool>(false);
  busy_.insert(code);
  writer_->submit(
      code, [code, t, until, claimed](Store& store) { *claimed = store.claim_cpu_turn(code, t, until); },
      [this, code, claimed](std::exception_ptr error) {
        busy_.erase(code);
        // Another instance holds it, or the store is away (the scan tries again).
        if (error || !*claimed) return;
        Table* p = tables_.in_memory(code);
        if (p && p->game() && cpu_to_act(*p->game(), p->cpu_level())) search(*p);
      });
}

void CpuPlayers::search(Table& p) {
  const LiveGame& g = *p.game();
  // The CPU (seat 1) moves on its turn, and answers a draw offered to it at once.
  const bool offered = g.game.draw_offer() && g.seat_of(*g.game.draw_offer()) == 0;
  busy_.insert(p.code());
  std::string code = p.code();
  int64_t game = g.id;
  int version = g.version;
  CpuJob job;
  job.position = g.game.position();
  job.level = p.cpu_level();
  job.max_ms = limits_.max_ms;
  job.answer_offer = offered;
  job.cpu = g.seat_of(WHITE) == 1 ? WHITE : BLACK;
  auto owner = owner_.find(code);
  job.owner = owner == owner_.end() ? "" : owner->second;
  // Levels 1-5 answer no sooner than a short pause (0.95 s at level 1 down to
  // 0.35 s at level 5, give or take a quarter): an instant reply reads as abrupt.
  int64_t pause = 0;
  if (limits_.pause && job.level <= 5 && defer_) {
    const int64_t base = 1100 - 150 * job.level;
    pause = base * 3 / 4 + int64_t(rng_() % uint64_t(base / 2 + 1));
  }
  const int64_t ready_at = now_() + pause;
  job.done = [this, code, game, version, ready_at](std::vector<std::string> actions) {
    post_([this, code, game, version, ready_at, actions = std::move(actions)]() mutable {
      const int64_t wait = ready_at - now_();
      if (wait <= 0) return tables_.play(code, game, version, std::move(actions));
      defer_(wait, [this, code, game, version, actions = std::move(actions)]() mutable {
        tables_.play(code, game, version, std::move(actions));
      });
    });
  };
  pool_->submit(std::move(job));
}

void CpuPlayers::scan(std::function<void(std::vector<std::string> codes)> owed) {
  if (!shared_) return;
  // Asked of the store off this thread.
  auto codes = std::make_shared<std::vector<std::string>>();
  writer_->submit(
      "", [codes, at = now_()](Store& store) { *codes = store.cpu_turn_tables(at, CPU_TURNS_PER_SCAN); },
      [codes, owed = std::move(owed)](std::exception_ptr error) {
        if (!error) owed(std::move(*codes));  // the store away: the next scan asks again
      });
}

void CpuPlayers::play_owed(std::vector<std::string> codes) {
  if (codes.empty()) return;
  auto owed = std::make_shared<std::vector<std::string>>(std::move(codes));
  tables_.open_all(*owed, [this, owed] {
    for (const std::string& code : *owed)
      if (Table* p = tables_.in_memory(code); p && !busy_.count(code)) maybe_play(*p);
  });
}

}  // namespace makruk::server
