// Tables, seats, house rules, game flow and storage, without the network.
#include <gtest/gtest.h>

#include <atomic>
#include <future>
#include <mutex>
#include <thread>

#include "server/cpu/cpu.h"
#include "server/tables/hub.h"
#include "server/tables/table.h"
#include "server/stores/store.h"
#include "server/stores/store_writer.h"
#include "temp_db.h"
#include "temp_pg.h"

using namespace makruk;
using namespace makruk::server;

namespace {

// The store's tests run on each backend: SQLite, and PostgreSQL when the test
// command has started one (MAKRUK_TEST_POSTGRES).
class StoreTest : public ::testing::TestWithParam<std::string> {
 protected:
  void SetUp() override {
    if (GetParam() == "postgresql") {
      if (testing_helpers::TempPg::server().empty()) GTEST_SKIP() << "no PostgreSQL (MAKRUK_TEST_POSTGRES) to test on";
      pg_ = std::make_unique<testing_helpers::TempPg>();
    }
    reopen();
  }
  void TearDown() override {
    store_.reset();
    pg_.reset();
    db_.clear();
  }
  void reopen() {
    store_.reset();
    store_ = pg_ ? open_postgres_store(pg_->url()) : open_sqlite_store(db_.path());
  }

  Table new_table(TableRecord r) {
    r.code = r.code.empty() ? "ABCDEF" : r.code;
    store_->create_table(r, SeatRecord{r.code, 0, "Somchai", hash_token("host")});
    Table p(r);
    p.seats().push_back(Seat{"Somchai", hash_token("host"), 0});
    return p;
  }

  testing_helpers::TempDb db_{"makruk-unit"};
  std::unique_ptr<testing_helpers::TempPg> pg_;
  std::unique_ptr<Store> store_;
};

TableRecord rules(std::string variant = "makruk", std::string counting = "auto", bool swap = true) {
  TableRecord r;
  r.variant = std::move(variant);
  r.counting = std::move(counting);
  r.swap_colors = swap;
  return r;
}

}  // namespace

TEST_P(StoreTest, MigrationsRunOnceAndReopenKeepsData) {
  new_table(rules());
  reopen();
  auto back = store_->load_table("ABCDEF");
  ASSERT_TRUE(back);
  EXPECT_EQ(back->party.code, "ABCDEF");
  EXPECT_EQ(back->seats.size(), 1u);
  EXPECT_FALSE(store_->load_table("ABCDEG"));
}

TEST_P(StoreTest, DuplicateCodeIsRefused) {
  new_table(rules());
  EXPECT_THROW(new_table(rules()), std::runtime_error);
}

TEST_P(StoreTest, AppendNeedsTheExpectedVersion) {
  new_table(rules());
  int64_t game = store_->create_game("ABCDEF", 1, 0, "fen", 0, false, "pid-abcdef-1");
  store_->append_action(game, 0, "e3e4", 1, false);
  EXPECT_THROW(store_->append_action(game, 0, "e3e4", 2, false), VersionConflict);
  store_->append_action(game, 1, "e6e5", 3, false);
  auto back = store_->load_table("ABCDEF");
  ASSERT_EQ(back->games.size(), 1u);
  ASSERT_EQ(back->games[0].actions.size(), 2u);
  EXPECT_EQ(back->games[0].actions[1].action, "e6e5");
  EXPECT_EQ(back->games[0].actions[1].version, 2);
}

// Two instances (two connections to one database) append to one game at
// once: for each version exactly one append wins, the other is told
// VersionConflict, and nothing is lost or doubled.
TEST_P(StoreTest, ConcurrentAppendsFromTwoConnectionsAcceptOnePerVersion) {
  new_table(rules());
  const int64_t game = store_->create_game("ABCDEF", 1, 0, "fen", 0, false, "pid-abcdef-1");
  std::unique_ptr<Store> other = pg_ ? open_postgres_store(pg_->url()) : open_sqlite_store(db_.path());
  constexpr int VERSIONS = 60;
  std::atomic<int> won[2] = {0, 0}, conflicts[2] = {0, 0};
  auto writer = [&](Store& s, int who) {
    for (int v = 0; v < VERSIONS; ++v) {
      try {
        s.append_action(game, v, who ? "b" : "a", v, false);
        ++won[who];
      } catch (const VersionConflict&) {
        ++conflicts[who];
      }
    }
  };
  std::thread t1(writer, std::ref(*store_), 0), t2(writer, std::ref(*other), 1);
  t1.join();
  t2.join();
  auto back = store_->load_table("ABCDEF");
  ASSERT_TRUE(back);
  const auto& actions = back->games[0].actions;
  // Each version is taken once; whoever lost a version tries the next one.
  for (size_t i = 0; i < actions.size(); ++i) EXPECT_EQ(actions[i].version, int(i) + 1);
  EXPECT_EQ(int(actions.size()), won[0] + won[1]);
  EXPECT_EQ(won[0] + conflicts[0], VERSIONS);
  EXPECT_EQ(won[1] + conflicts[1], VERSIONS);
  EXPECT_GE(int(actions.size()), VERSIONS);
}

// What the server does unasked comes from indexed queries: the tables where
// the CPU owes a reply, and the turn-based tables idle since a time.
TEST_P(StoreTest, QueriesForCpuTurnsAndIdleTurnBasedTables) {
  TableRecord turn = rules();
  turn.code = "TURN01";
  turn.mode = "turn";
  turn.created_at = 100;
  new_table(turn);
  TableRecord cpu = rules();
  cpu.code = "CPU001";
  cpu.cpu_level = 3;
  cpu.created_at = 100;
  new_table(cpu);
  TableRecord live = rules();
  live.code = "LIVE01";
  live.created_at = 100;
  new_table(live);

  EXPECT_EQ(store_->turn_based_idle_since(99, 10), std::vector<std::string>{});
  EXPECT_EQ(store_->turn_based_idle_since(100, 10), std::vector<std::string>{"TURN01"});
  int64_t game = store_->create_game("TURN01", 1, 0, "fen", 200, false, "pid-turn01-1");
  EXPECT_EQ(store_->turn_based_idle_since(150, 10), std::vector<std::string>{});
  store_->append_action(game, 0, "e3e4", 300, false);
  EXPECT_EQ(store_->turn_based_idle_since(250, 10), std::vector<std::string>{});
  EXPECT_EQ(store_->turn_based_idle_since(300, 10), std::vector<std::string>{"TURN01"});
  store_->expire_table("TURN01", game, 1, 400);
  EXPECT_EQ(store_->turn_based_idle_since(1000, 10), std::vector<std::string>{}) << "expired: done";

  EXPECT_EQ(store_->cpu_turn_tables(1000, 10), std::vector<std::string>{});
  int64_t cpuGame = store_->create_game("CPU001", 1, 1, "fen", 200, true, "pid-cpu001-1");  // the CPU plays White
  EXPECT_EQ(store_->cpu_turn_tables(1000, 10), std::vector<std::string>{"CPU001"});
  store_->append_action(cpuGame, 0, "e3e4", 210, false);
  EXPECT_EQ(store_->cpu_turn_tables(1000, 10), std::vector<std::string>{});
  store_->append_action(cpuGame, 1, "e6e5", 220, true);
  EXPECT_EQ(store_->cpu_turn_tables(1000, 10), std::vector<std::string>{"CPU001"});
  // One instance claims the turn until 2000: no other can before then, and
  // the scan for orphaned turns leaves it out; after 2000 it may be claimed
  // again (the instance died); a move ends the lease.
  EXPECT_TRUE(store_->claim_cpu_turn("CPU001", 1000, 2000));
  EXPECT_FALSE(store_->claim_cpu_turn("CPU001", 1500, 2500));
  EXPECT_EQ(store_->cpu_turn_tables(1500, 10), std::vector<std::string>{});
  EXPECT_EQ(store_->cpu_turn_tables(2000, 10), std::vector<std::string>{"CPU001"});
  EXPECT_TRUE(store_->claim_cpu_turn("CPU001", 2000, 3000));
  EXPECT_FALSE(store_->claim_cpu_turn("LIVE01", 0, 3000)) << "no CPU turn there";
  store_->append_action(cpuGame, 2, "e4e5", 230, true);
  EXPECT_TRUE(store_->claim_cpu_turn("CPU001", 240, 3000)) << "the move ended the lease";
  store_->clear_cpu_turn("CPU001");
  EXPECT_EQ(store_->cpu_turn_tables(1000, 10), std::vector<std::string>{});

  store_->set_left_at("LIVE01", 12345);
  reopen();
  EXPECT_EQ(store_->load_table("LIVE01")->party.left_at, 12345);
}

// Only the latest game is read: an open table needs no older history.
TEST_P(StoreTest, LoadingAPartyReadsItsLatestGame) {
  new_table(rules());
  int64_t one = store_->create_game("ABCDEF", 1, 0, "fen1", 0, false, "pid-one");
  store_->append_action(one, 0, "e3e4", 1, false);
  int64_t two = store_->create_game("ABCDEF", 2, 1, "fen2", 2, false, "pid-two");
  store_->append_action(two, 0, "d3d4", 3, false);
  auto back = store_->load_table("ABCDEF");
  ASSERT_EQ(back->games.size(), 1u);
  EXPECT_EQ(back->games[0].number, 2);
  EXPECT_EQ(back->games[0].start_fen, "fen2");
  ASSERT_EQ(back->games[0].actions.size(), 1u);
  EXPECT_EQ(back->games[0].actions[0].action, "d3d4");
  EXPECT_EQ(back->games[0].public_id, "pid-two");
  // Any game, by its own link: with its table and seats.
  auto first = store_->load_game("pid-one");
  ASSERT_TRUE(first);
  EXPECT_EQ(first->party.code, "ABCDEF");
  EXPECT_EQ(first->seats.size(), 1u);
  ASSERT_EQ(first->games.size(), 1u);
  EXPECT_EQ(first->games[0].number, 1);
  EXPECT_EQ(first->games[0].public_id, "pid-one");
  ASSERT_EQ(first->games[0].actions.size(), 1u);
  EXPECT_EQ(first->games[0].actions[0].action, "e3e4");
  EXPECT_EQ(store_->load_game("pid-two")->games[0].number, 2);
  EXPECT_FALSE(store_->load_game("pid-three"));
  EXPECT_FALSE(store_->load_game(""));
  // A public id is taken once.
  EXPECT_THROW(store_->create_game("ABCDEF", 3, 0, "fen3", 4, false, "pid-one"), std::exception);
}

TEST_P(StoreTest, SeatsFillThenSpectate) {
  Table p = new_table(rules());
  EXPECT_EQ(p.status(), "waiting");
  int seat;
  EXPECT_FALSE(p.add_player(*store_, "Dara", hash_token("guest"), seat));
  EXPECT_EQ(seat, 1);
  EXPECT_EQ(p.status(), "ready");
  auto full = p.add_player(*store_, "Visitor", hash_token("third"), seat);
  ASSERT_TRUE(full);
  EXPECT_EQ(full->code, ErrorCode::Full);
  EXPECT_EQ(seat, -1);
  EXPECT_EQ(p.seats().size(), 2u);
  EXPECT_EQ(p.seat_of_token(hash_token("guest")), 1);
  EXPECT_EQ(p.seat_of_token(hash_token("nobody")), -1);
}

TEST_P(StoreTest, OnlyTheHostStartsAndOnlyWithTwoPlayers) {
  Table p = new_table(rules());
  auto e = p.start(*store_, 0, 0);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->code, ErrorCode::Conflict);
  int seat;
  p.add_player(*store_, "Dara", hash_token("guest"), seat);
  e = p.start(*store_, 1, 0);
  ASSERT_TRUE(e);
  EXPECT_EQ(e->code, ErrorCode::Forbidden);
  EXPECT_FALSE(p.start(*store_, 0, 0));
  EXPECT_EQ(p.status(), "playing");
  EXPECT_TRUE(p.start(*store_, 0, 0));  // already started
}

TEST_P(StoreTest, GameFlowVersionsTurnsAndRefusals) {
  Table p = new_table(rules());
  int seat;
  p.add_player(*store_, "Dara", hash_token("guest"), seat);
  p.start(*store_, 0, 0);
  EXPECT_EQ(p.act(*store_, 1, "move", "e6e5", 0, 1)->code, ErrorCode::Forbidden);  // not Black's turn
  EXPECT_EQ(p.act(*store_, -1, "move", "e3e4", 0, 1)->code, ErrorCode::Forbidden);  // spectator
  EXPECT_EQ(p.act(*store_, 0, "move", "e3e5", 0, 1)->code, ErrorCode::BadRequest);  // illegal
  EXPECT_EQ(p.act(*store_, 0, "move", "e3e4", 3, 1)->code, ErrorCode::Conflict);    // wrong version
  EXPECT_EQ(p.game()->version, 0);
  EXPECT_FALSE(p.act(*store_, 0, "move", "e3e4", 0, 1));
  EXPECT_EQ(p.game()->version, 1);
  EXPECT_EQ(p.game()->san.back(), "e4");
  EXPECT_FALSE(p.act(*store_, 1, "resign", "", 1, 2));
  EXPECT_EQ(p.game()->game.result(), Result::WhiteWins);
  EXPECT_EQ(p.status(), "finished");
  EXPECT_EQ(p.act(*store_, 0, "move", "d3d4", 2, 3)->code, ErrorCode::Conflict);
}

TEST_P(StoreTest, RematchSwapsColoursWhenTheHouseRuleIsOn) {
  for (bool swap : {true, false}) {
    Table p = new_table(rules("makruk", "auto", swap));
    int seat;
    p.add_player(*store_, "Dara", hash_token("guest"), seat);
    p.start(*store_, 0, 0);
    EXPECT_EQ(p.game()->white_seat, 0);
    bool started = false;
    EXPECT_EQ(p.rematch(*store_, 0, 0, started)->code, ErrorCode::Conflict);  // still running
    p.act(*store_, 0, "resign", "", 0, 0);
    EXPECT_EQ(p.rematch(*store_, -1, 0, started)->code, ErrorCode::Forbidden);
    EXPECT_FALSE(p.rematch(*store_, 1, 0, started));  // the offer
    EXPECT_FALSE(started);
    EXPECT_FALSE(p.rematch(*store_, 0, 0, started));  // accepted
    EXPECT_TRUE(started);
    EXPECT_EQ(p.game()->number, 2);
    EXPECT_EQ(p.game()->white_seat, swap ? 1 : 0);
    TearDown();
    SetUp();
  }
}

TEST_P(StoreTest, RematchIsByAgreementAndTheOfferAndDeclineSurviveReload) {
  Table p = new_table(rules());
  int seat;
  bool started = false;
  p.add_player(*store_, "Dara", hash_token("guest"), seat);
  p.start(*store_, 0, 0);
  p.act(*store_, 0, "resign", "", 0, 0);
  EXPECT_EQ(p.rematch_offer(), -1);
  EXPECT_EQ(p.decline_rematch(*store_, 1)->code, ErrorCode::Conflict);  // nothing to decline

  // Offered by one, declined by the other: the game stays over, the decline is shown.
  EXPECT_FALSE(p.rematch(*store_, 0, 0, started));
  EXPECT_FALSE(started);
  EXPECT_EQ(p.rematch_offer(), 0);
  EXPECT_FALSE(p.rematch(*store_, 0, 0, started));  // offering again changes nothing
  EXPECT_FALSE(started);
  EXPECT_EQ(p.decline_rematch(*store_, -1)->code, ErrorCode::Forbidden);
  EXPECT_FALSE(p.decline_rematch(*store_, 1));
  EXPECT_EQ(p.rematch_offer(), -1);
  EXPECT_EQ(p.rematch_declined_by(), 1);
  EXPECT_EQ(p.game()->number, 1);
  // The decline is shown after a restart too.
  reopen();
  p = Table::from_record(*store_->load_table("ABCDEF"));
  EXPECT_EQ(p.rematch_offer(), -1);
  EXPECT_EQ(p.rematch_declined_by(), 1);

  // Offered again and withdrawn: nobody declined.
  EXPECT_FALSE(p.rematch(*store_, 0, 0, started));
  EXPECT_EQ(p.rematch_declined_by(), -1);
  EXPECT_FALSE(p.decline_rematch(*store_, 0));
  EXPECT_EQ(p.rematch_offer(), -1);
  EXPECT_EQ(p.rematch_declined_by(), -1);

  // An offer is kept through a restart, and accepting it starts game 2.
  EXPECT_FALSE(p.rematch(*store_, 1, 0, started));
  reopen();
  Table back = Table::from_record(*store_->load_table("ABCDEF"));
  EXPECT_EQ(back.rematch_offer(), 1);
  EXPECT_FALSE(back.rematch(*store_, 0, 5, started));
  EXPECT_TRUE(started);
  EXPECT_EQ(back.game()->number, 2);
  EXPECT_EQ(back.rematch_offer(), -1);
  reopen();
  EXPECT_EQ(store_->load_table("ABCDEF")->party.rematch_offer, -1);
  EXPECT_EQ(store_->load_table("ABCDEF")->party.rematch_declined_by, -1);
}

TEST_P(StoreTest, DeclarationModeCountsThroughThePartyAndSurvivesReload) {
  TableRecord r = rules("makruk", "declare");
  r.start_fen = "8/8/4k3/8/8/2R5/8/3K4 w - - 0 1";
  Table p = new_table(r);
  int seat;
  p.add_player(*store_, "Dara", hash_token("guest"), seat);
  p.start(*store_, 0, 0);
  EXPECT_EQ(p.act(*store_, 0, "count", "", 0, 0)->code, ErrorCode::BadRequest);  // White does not qualify
  EXPECT_FALSE(p.act(*store_, 1, "count", "", 0, 0));
  EXPECT_FALSE(p.act(*store_, 0, "move", "c3c4", 1, 0));
  EXPECT_FALSE(p.act(*store_, 1, "move", "e6e5", 2, 0));
  const Count& c = p.game()->game.position().count();
  EXPECT_EQ(c.n, 4);
  EXPECT_EQ(c.limit, 16);

  reopen();
  auto all = store_->load_table("ABCDEF");
  ASSERT_TRUE(all);
  Table back = Table::from_record(*all);
  ASSERT_TRUE(back.game());
  EXPECT_EQ(back.game()->version, 3);
  EXPECT_EQ(back.game()->game.position().fen(), p.game()->game.position().fen());
  EXPECT_EQ(back.game()->game.position().count(), p.game()->game.position().count());
  EXPECT_EQ(back.game()->san, p.game()->san);
}

// The clock house rule: each move takes the time its side used and adds the
// increment; the side to move runs out at its flag time; the game ends on
// time, lost or drawn by the material; a table read again from the store has
// the same clocks (they come from the stored times).
TEST_P(StoreTest, AClockCountsFromTheStoredTimesAndAGameEndsOnTime) {
  TableRecord r = rules();
  r.clock_ms = 60000;
  r.increment_ms = 2000;
  Table p = new_table(r);
  int seat;
  p.add_player(*store_, "Dara", hash_token("guest"), seat);
  const int64_t t0 = 1'000'000;
  p.start(*store_, 0, t0);
  ASSERT_TRUE(p.game()->clock);
  EXPECT_EQ(p.flag_at(), t0 + 60000);  // White's clock runs from the start
  EXPECT_FALSE(p.act(*store_, 0, "move", "e3e4", 0, t0 + 10000));
  EXPECT_EQ(p.game()->clock->left[WHITE], 52000);  // 60 − 10 + 2
  EXPECT_EQ(p.flag_at(), t0 + 10000 + 60000);
  EXPECT_FALSE(p.act(*store_, 1, "offer-draw", "", 1, t0 + 20000));  // no move: Black's clock runs on
  EXPECT_FALSE(p.act(*store_, 1, "move", "e6e5", 2, t0 + 25000));
  EXPECT_EQ(p.game()->clock->left[BLACK], 47000);  // 60 − 15 + 2
  EXPECT_FALSE(p.out_of_time(t0 + 25000 + 51999));
  EXPECT_TRUE(p.out_of_time(t0 + 25000 + 52000));
  EXPECT_EQ(p.act(*store_, 1, "time", "", 3, t0 + 80000)->code, ErrorCode::BadRequest);  // not Black's clock
  EXPECT_FALSE(p.act(*store_, 0, "time", "", 3, t0 + 80000));
  EXPECT_EQ(p.game()->game.result(), Result::BlackWins);
  EXPECT_EQ(p.game()->game.reason(), Reason::Time);
  EXPECT_EQ(p.game()->clock->left[WHITE], 0);
  EXPECT_EQ(p.game()->clock->left[BLACK], 47000);
  EXPECT_EQ(p.flag_at(), 0);  // over: no clock runs

  reopen();
  Table back = Table::from_record(*store_->load_table("ABCDEF"));
  ASSERT_TRUE(back.game() && back.game()->clock);
  EXPECT_EQ(back.game()->clock->left[WHITE], 0);
  EXPECT_EQ(back.game()->clock->left[BLACK], 47000);
  EXPECT_EQ(back.game()->clock->since, t0 + 80000);
  EXPECT_EQ(back.game()->game.reason(), Reason::Time);
}

TEST_P(StoreTest, ATableWithoutAClockHasNoneAndResigningStopsAClock) {
  Table plain = new_table(rules());
  int seat;
  plain.add_player(*store_, "Dara", hash_token("guest"), seat);
  plain.start(*store_, 0, 5);
  EXPECT_FALSE(plain.game()->clock);
  EXPECT_EQ(plain.flag_at(), 0);

  TableRecord r = rules();
  r.code = "GHJKLM";
  r.clock_ms = 30000;
  Table p = new_table(r);
  p.add_player(*store_, "Dara", hash_token("guest"), seat);
  p.start(*store_, 0, 1000);
  EXPECT_FALSE(p.act(*store_, 0, "move", "e3e4", 0, 4000));
  EXPECT_FALSE(p.act(*store_, 0, "resign", "", 1, 9000));  // White resigns while Black's clock runs
  EXPECT_EQ(p.game()->clock->left[BLACK], 25000);           // stopped at the end
  EXPECT_EQ(p.game()->clock->left[WHITE], 27000);
  reopen();
  Table back = Table::from_record(*store_->load_table("GHJKLM"));
  EXPECT_EQ(back.game()->clock->left[BLACK], 25000);
}

// The writer's lanes, each with its own connection: what waits when a lane
// is free again goes as one batch, and each piece of it still succeeds or
// fails alone; what was given under one key is stored in that order.
class WriterTest : public StoreTest {
 protected:
  std::unique_ptr<Store> connection() {
    return pg_ ? open_postgres_store(pg_->url()) : open_sqlite_store(db_.path());
  }
  // A writer of `lanes` lanes whose completions run on the test's thread
  // (run_completions).
  std::unique_ptr<StoreWriter> writer(int lanes) {
    std::vector<std::unique_ptr<Store>> connections;
    for (int i = 0; i < lanes; ++i) connections.push_back(connection());
    return std::make_unique<StoreWriter>(std::move(connections), [this](std::function<void()> f) {
      std::lock_guard lock(mutex_);
      completions_.push_back(std::move(f));
    });
  }
  void run_completions() {
    std::vector<std::function<void()>> ready;
    {
      std::lock_guard lock(mutex_);
      ready.swap(completions_);
    }
    for (auto& f : ready) f();
  }
  std::mutex mutex_;
  std::vector<std::function<void()>> completions_;
};

TEST_P(WriterTest, ABatchCommitsTogetherAndAFailedWriteFailsAlone) {
  new_table(rules());
  const int64_t game = store_->create_game("ABCDEF", 1, 0, "fen", 0, false, "pid-abcdef-1");
  auto w = writer(1);
  // The lane is held by a first piece of work while the next three wait, so
  // that they go as one batch.
  std::promise<void> release;
  std::shared_future<void> released = release.get_future().share();
  std::vector<std::string> outcomes;
  auto note = [&](std::string what) {
    return [&outcomes, what](std::exception_ptr e) {
      if (!e) return outcomes.push_back(what + ": ok");
      try {
        std::rethrow_exception(e);
      } catch (const VersionConflict&) {
        outcomes.push_back(what + ": conflict");
      } catch (const std::exception&) {
        outcomes.push_back(what + ": failed");
      }
    };
  };
  std::promise<void> holding;
  w->submit("ABCDEF", [&holding, released](Store&) {
    holding.set_value();
    released.wait();
  }, note("hold"));
  holding.get_future().wait();
  w->submit("ABCDEF", [game](Store& s) { s.append_action(game, 0, "e3e4", 1, false); }, note("first"));
  w->submit("ABCDEF", [game](Store& s) { s.append_action(game, 0, "d3d4", 2, false); }, note("again"));
  w->submit("ABCDEF", [game](Store& s) { s.append_action(game, 1, "e6e5", 3, false); }, note("second"));
  release.set_value();
  ASSERT_TRUE(w->wait_idle(30000));
  run_completions();
  EXPECT_EQ(outcomes, (std::vector<std::string>{"hold: ok", "first: ok", "again: conflict", "second: ok"}));
  EXPECT_EQ(w->jobs(), 4u);
  EXPECT_EQ(w->batches(), 2u);
  auto back = store_->load_table("ABCDEF");
  ASSERT_EQ(back->games[0].actions.size(), 2u);
  EXPECT_EQ(back->games[0].actions[0].action, "e3e4");
  EXPECT_EQ(back->games[0].actions[1].action, "e6e5");
}

// In one batch, a write that fails for its own reason (a game link taken)
// leaves the writes before and after it stored.
TEST_P(WriterTest, AWriteRefusedInABatchLeavesTheOthersStored) {
  new_table(rules());
  const int64_t game = store_->create_game("ABCDEF", 1, 0, "fen", 0, false, "pid-abcdef-1");
  auto w = writer(1);
  std::promise<void> release, holding;
  std::shared_future<void> released = release.get_future().share();
  std::vector<bool> ok(4, false);
  auto note = [&](size_t i) { return [&ok, i](std::exception_ptr e) { ok[i] = !e; }; };
  w->submit("ABCDEF", [&holding, released](Store&) {
    holding.set_value();
    released.wait();
  }, note(0));
  holding.get_future().wait();
  w->submit("ABCDEF", [game](Store& s) { s.append_action(game, 0, "e3e4", 1, false); }, note(1));
  w->submit("ABCDEF", [](Store& s) { s.create_game("ABCDEF", 2, 1, "fen", 2, false, "pid-abcdef-1"); }, note(2));
  w->submit("ABCDEF", [game](Store& s) { s.append_action(game, 1, "e6e5", 3, false); }, note(3));
  release.set_value();
  ASSERT_TRUE(w->wait_idle(30000));
  run_completions();
  EXPECT_EQ(ok, (std::vector<bool>{true, true, false, true}));
  EXPECT_EQ(w->batches(), 2u);
  auto back = store_->load_table("ABCDEF");
  EXPECT_EQ(back->games.back().number, 1);
  ASSERT_EQ(back->games.back().actions.size(), 2u);
  EXPECT_EQ(back->games.back().actions[1].action, "e6e5");
}

// Many tables' moves from several threads at once: each table's are stored
// in the order given, none lost; the completions come in that order too.
TEST_P(WriterTest, EachTablesWritesKeepTheirOrderAcrossLanes) {
  constexpr int TABLES = 12, MOVES = 40;
  std::vector<int64_t> games;
  for (int t = 0; t < TABLES; ++t) {
    TableRecord r = rules();
    r.code = "TAB" + std::to_string(100 + t);
    store_->create_table(r, SeatRecord{r.code, 0, "Somchai", hash_token("host")});
    games.push_back(store_->create_game(r.code, 1, 0, "fen", 0, false, "pid-" + r.code));
  }
  auto w = writer(3);
  std::vector<std::vector<int>> done(TABLES);
  std::atomic<int> failures{0};
  std::vector<std::thread> givers;
  for (int half = 0; half < 2; ++half)
    givers.emplace_back([&, half] {
      for (int t = half; t < TABLES; t += 2)
        for (int v = 0; v < MOVES; ++v)
          w->submit(
              "TAB" + std::to_string(100 + t),
              [game = games[size_t(t)], v](Store& s) { s.append_action(game, v, "m" + std::to_string(v), v, false); },
              [&, t, v](std::exception_ptr e) {
                if (e) ++failures;
                done[size_t(t)].push_back(v);
              });
    });
  for (auto& g : givers) g.join();
  ASSERT_TRUE(w->wait_idle(60000));
  run_completions();
  EXPECT_EQ(failures.load(), 0);
  EXPECT_EQ(w->jobs(), uint64_t(TABLES * MOVES));
  for (int t = 0; t < TABLES; ++t) {
    ASSERT_EQ(done[size_t(t)].size(), size_t(MOVES));
    for (int v = 0; v < MOVES; ++v) EXPECT_EQ(done[size_t(t)][size_t(v)], v);
    auto back = store_->load_table("TAB" + std::to_string(100 + t));
    ASSERT_EQ(back->games[0].actions.size(), size_t(MOVES));
    for (int v = 0; v < MOVES; ++v) EXPECT_EQ(back->games[0].actions[size_t(v)].action, "m" + std::to_string(v));
  }
}

// A writer that goes (the server stopping) first stores what it was given.
TEST_P(WriterTest, WhatWasGivenIsStoredBeforeTheWriterGoes) {
  new_table(rules());
  const int64_t game = store_->create_game("ABCDEF", 1, 0, "fen", 0, false, "pid-abcdef-1");
  {
    auto w = writer(1);
    for (int v = 0; v < 200; ++v)
      w->submit("ABCDEF", [game, v](Store& s) { s.append_action(game, v, "m", v, false); }, [](std::exception_ptr) {});
  }
  EXPECT_EQ(store_->load_table("ABCDEF")->games[0].actions.size(), 200u);
}

INSTANTIATE_TEST_SUITE_P(Backends, WriterTest, ::testing::Values("sqlite", "postgresql"),
                         [](const auto& info) { return info.param; });

INSTANTIATE_TEST_SUITE_P(Backends, StoreTest, ::testing::Values("sqlite", "postgresql"),
                         [](const auto& info) { return info.param; });

TEST(Tokens, RandomAndHashed) {
  std::string a = random_token(), b = random_token();
  EXPECT_EQ(a.size(), 32u);
  EXPECT_NE(a, b);
  EXPECT_EQ(hash_token(a), hash_token(a));
  EXPECT_NE(hash_token(a), hash_token(b));
  EXPECT_EQ(hash_token(a).size(), 64u);
}

TEST(Cpu, DeclaresACountItQualifiesFor) {
  Position pos;
  ASSERT_TRUE(pos.set("8/8/4k3/8/8/2R5/8/3K4 b - - 0 1", Variant::Makruk, Counting::Declaration, nullptr));
  auto actions = cpu_actions(pos, 1);
  ASSERT_EQ(actions.size(), 2u);
  EXPECT_EQ(actions[0], "count:b");
}

TEST(Cpu, StopsItsCountBeforeItCanWin) {
  // Black counts a board count (declared) but has a rook against two mets and
  // can mate at once: it stops counting, then mates.
  Position pos;
  ASSERT_TRUE(pos.set("7r/8/8/7M/8/8/2k4M/K7 b - - 0 1", Variant::Makruk, Counting::Declaration, nullptr));
  Count c;
  c.kind = CountKind::Board;
  c.side = BLACK;
  c.n = 3;
  c.limit = 64;
  pos.set_count(c);
  auto actions = cpu_actions(pos, 8);
  ASSERT_EQ(actions.size(), 2u);
  EXPECT_EQ(actions[0], "stop:b");
  EXPECT_EQ(actions[1], "h8a8");
}

TEST(Cpu, AnswersADrawOfferByItsEvaluation) {
  Position pos;
  // At the start, White (the player) offers before moving: the CPU (Black) is
  // not worse, so it declines and, not being on move, plays nothing else.
  ASSERT_TRUE(pos.set("rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR w - - 0 1", Variant::Makruk, Counting::Automatic, nullptr));
  auto actions = cpu_actions(pos, 4, 300, true, BLACK);
  EXPECT_EQ(actions, std::vector<std::string>{"decline:b"});
  // A rook down, on move: it accepts.
  ASSERT_TRUE(pos.set("1nsmksnr/8/pppppppp/8/8/PPPPPPPP/8/RNSKMSNR b - - 0 1", Variant::Makruk,
                      Counting::Automatic, nullptr));
  EXPECT_EQ(cpu_actions(pos, 4, 300, true, BLACK), std::vector<std::string>{"accept:b"});
  // A rook up, on move: it declines, then moves.
  ASSERT_TRUE(pos.set("rnsmksnr/8/pppppppp/8/8/PPPPPPPP/8/1NSKMSNR b - - 0 1", Variant::Makruk,
                      Counting::Automatic, nullptr));
  actions = cpu_actions(pos, 4, 300, true, BLACK);
  ASSERT_EQ(actions.size(), 2u);
  EXPECT_EQ(actions[0], "decline:b");
}
