// The hubs of one process together: the bus between them in memory
// (bus_local.h) and the store writer whose lanes they share, each getting its
// answers on its own thread (store_writer.h).
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <optional>
#include <mutex>
#include <thread>
#include <vector>

#include "server/buses/bus_local.h"
#include "server/stores/store_writer.h"
#include "temp_db.h"

using namespace makruk::server;
using namespace std::chrono_literals;

namespace {

// What a member was told, from whichever thread told it.
struct Inbox {
  std::mutex mutex;
  std::vector<BusMessage> got;
  std::function<void(BusMessage)> handler() {
    return [this](BusMessage m) {
      std::lock_guard lock(mutex);
      got.push_back(std::move(m));
    };
  }
  size_t size() {
    std::lock_guard lock(mutex);
    return got.size();
  }
};

}  // namespace

// Three hubs on one local bus, each hearing into its inbox.
struct LocalBusOfThree : ::testing::Test {
  Inbox ia, ib, ic;  // first, so that they outlive the buses
  LocalBuses buses;
  std::unique_ptr<Bus> a = buses.attach("hub-0"), b = buses.attach("hub-1"), c = buses.attach("hub-2");
  LocalBusOfThree() {
    a->start(ia.handler());
    b->start(ib.handler());
    c->start(ic.handler());
  }
};

TEST_F(LocalBusOfThree, WhatOneHubPublishesReachesEveryOtherOnceAndNeverItselfOrAStoppedOne) {
  for (auto* bus : {a.get(), b.get(), c.get()}) {
    bus->hold("K7QX2M", true);
    bus->hold("ABCDEF", true);
  }
  BusMessage m("K7QX2M", 3, 12);
  m.actions = {"e3e4"};
  a->publish(m);
  EXPECT_EQ(ia.size(), 0u);
  ASSERT_EQ(ib.size(), 1u);
  ASSERT_EQ(ic.size(), 1u);
  EXPECT_EQ(ib.got[0].code, "K7QX2M");
  EXPECT_EQ(ib.got[0].version, 12);
  EXPECT_EQ(ib.got[0].actions, std::vector<std::string>{"e3e4"});
  EXPECT_EQ(ib.got[0].instance, "hub-0");  // the sender, set on delivery
  b->stop();
  c->publish(BusMessage("ABCDEF"));
  EXPECT_EQ(ib.size(), 1u) << "a stopped member hears nothing more";
  EXPECT_EQ(ia.size(), 1u);
  EXPECT_EQ(a->id(), "hub-0");
  EXPECT_TRUE(a->is_alive("hub-2"));
  c.reset();
  EXPECT_FALSE(a->is_alive("hub-2")) << "a member gone is not alive";
  EXPECT_FALSE(a->is_alive("hub-9"));
}

// A table's changes and presence reach only the hubs holding it (in memory,
// or being read): from the moment one says so until it says it no longer
// does, or goes. A message to one hub reaches it whatever it holds.
TEST_F(LocalBusOfThree, ATablesMessagesReachOnlyTheHubsHoldingIt) {
  a->publish(BusMessage("K7QX2M", 3, 12));
  EXPECT_EQ(ib.size() + ic.size(), 0u) << "nobody holds the table";
  b->hold("K7QX2M", true);
  a->publish(BusMessage("K7QX2M", 3, 13));
  BusMessage presence("K7QX2M");
  presence.presence = true;
  a->publish(presence);
  EXPECT_EQ(ib.size(), 2u);
  EXPECT_EQ(ic.size(), 0u) << "hub-2 does not hold it";
  a->publish(BusMessage("ABCDEF", 1, 1));
  EXPECT_EQ(ib.size(), 2u) << "another table's";
  BusMessage paired("ABCDEF");
  paired.to = "hub-2";
  paired.connection = 7;
  paired.paired = R"({"t":"paired"})";
  a->publish(paired);
  ASSERT_EQ(ic.size(), 1u) << "a message to a hub reaches it whatever it holds";
  EXPECT_EQ(ic.got[0].connection, 7u);
  EXPECT_EQ(ib.size(), 2u);
  b->hold("K7QX2M", true);  // said twice: still one delivery a message
  c->hold("K7QX2M", true);
  a->publish(BusMessage("K7QX2M", 3, 14));
  EXPECT_EQ(ib.size(), 3u);
  EXPECT_EQ(ic.size(), 2u);
  b->hold("K7QX2M", false);
  a->publish(BusMessage("K7QX2M", 3, 15));
  EXPECT_EQ(ib.size(), 3u) << "hub-1 let the table go";
  EXPECT_EQ(ic.size(), 3u);
  c.reset();  // a hub gone holds nothing
  auto d = buses.attach("hub-2");
  Inbox id;
  d->start(id.handler());
  a->publish(BusMessage("K7QX2M", 3, 16));
  EXPECT_EQ(id.size(), 0u) << "a new hub of the same name holds nothing yet";
  EXPECT_EQ(ia.size(), 0u) << "never its own";
}

TEST(LocalBus, CountsAreSharedExactlyAndAnsweredAtOnce) {
  LocalBuses buses;
  auto a = buses.attach("hub-0"), b = buses.attach("hub-1");
  std::optional<int64_t> last;
  auto take = [&](std::optional<int64_t> n) { last = n; };
  const int64_t t = 1'000'000;
  a->count("join:1.2.3.4", t, true, take);
  EXPECT_EQ(last, 1);
  b->count("join:1.2.3.4", t + 10, true, take);
  EXPECT_EQ(last, 2) << "the other hub's event counts";
  b->count("join:1.2.3.4", t + 20, false, take);
  EXPECT_EQ(last, 2) << "asking records nothing";
  a->count("join:5.6.7.8", t + 20, true, take);
  EXPECT_EQ(last, 1) << "each key alone";
  a->count("join:1.2.3.4", t + 60'005, false, take);
  EXPECT_EQ(last, 1) << "events older than a minute go";
  a->count("join:1.2.3.4", t + 200'000, false, take);
  EXPECT_EQ(last, 0);
}

TEST(LocalBus, TheSeekQueueIsOldestFirstAndAnEntryIsTakenOnce) {
  LocalBuses buses;
  auto a = buses.attach("hub-0"), b = buses.attach("hub-1");
  EXPECT_TRUE(a->add_seek("late", 20));
  EXPECT_TRUE(b->add_seek("early", 10));
  EXPECT_TRUE(a->add_seek("middle", 15));
  EXPECT_EQ(*b->seeks(), (std::vector<std::string>{"early", "middle", "late"}));
  EXPECT_TRUE(a->add_seek("late", 5));  // added again: its new time
  EXPECT_EQ(*a->seeks(), (std::vector<std::string>{"late", "early", "middle"}));
  EXPECT_EQ(*a->seek_count(), 3u);
  // Two hubs taking one entry at once: exactly one gets it.
  std::atomic<int> took{0};
  std::thread other([&] { took += b->take_seek("middle"); });
  took += a->take_seek("middle");
  other.join();
  EXPECT_EQ(took.load(), 1);
  EXPECT_FALSE(a->take_seek("absent"));
  EXPECT_EQ(*b->seek_count(), 2u);
}

TEST(LocalBus, QuestionsRunInOrderOffTheAskersThreadAndAStoppedHubsAreDropped) {
  LocalBuses buses;
  auto a = buses.attach("hub-0"), b = buses.attach("hub-1");
  Inbox ia, ib;
  a->start(ia.handler());
  b->start(ib.handler());
  std::promise<void> release;
  auto released = release.get_future().share();
  std::promise<std::thread::id> where;
  std::vector<int> order;
  std::mutex order_mutex;
  auto record = [&](int n) {
    std::lock_guard lock(order_mutex);
    order.push_back(n);
  };
  a->ask([&] {
    where.set_value(std::this_thread::get_id());
    released.wait();  // holds the questions' thread
    record(1);
  });
  EXPECT_NE(where.get_future().get(), std::this_thread::get_id());
  b->ask([&] { record(2); });  // waits behind the first, and its hub stops first
  a->ask([&] { record(3); });
  b->stop();  // another hub's question is being asked: it need not wait for that
  release.set_value();
  std::promise<void> after;
  a->ask([&] { after.set_value(); });
  ASSERT_EQ(after.get_future().wait_for(5s), std::future_status::ready);
  std::lock_guard lock(order_mutex);
  EXPECT_EQ(order, (std::vector<int>{1, 3}));
  b->ask([&] { record(4); });  // never run: stopped
}

TEST(SharedStoreWriter, EachHubsAnswersComeToItsOwnQueueInTheOrderOfItsWork) {
  makruk::testing_helpers::TempDb db("makruk-buses");
  { open_sqlite_store(db.path()); }  // the schema
  std::mutex mutex;
  std::vector<std::pair<int, int>> answered;  // (hub, piece), in the order they ran
  // Each hub's queue runs what it is handed at once; the second counts what it is handed.
  std::vector<std::unique_ptr<Store>> lanes;
  lanes.push_back(open_sqlite_store(db.path()));
  StoreWriter writer(std::move(lanes), [](std::function<void()> f) { f(); });
  std::atomic<int> handed_to_1{0};
  StoreWriter view(writer, [&](std::function<void()> f) {
    ++handed_to_1;
    f();
  });
  EXPECT_EQ(view.lanes(), 1u);
  for (int i = 0; i < 50; ++i) {
    StoreWriter& w = i % 2 ? view : writer;
    const int hub = i % 2;
    w.submit(
        "K7QX2M", [](Store& s) { s.table_exists("K7QX2M"); },
        [&, hub, i](std::exception_ptr e) {
          EXPECT_FALSE(e);
          std::lock_guard lock(mutex);
          answered.emplace_back(hub, i);
        });
  }
  ASSERT_TRUE(view.wait_idle(10000));
  std::lock_guard lock(mutex);
  ASSERT_EQ(answered.size(), 50u);
  int last[2] = {-1, -1};
  for (auto [hub, i] : answered) {
    EXPECT_GT(i, last[hub]) << "out of order";
    last[hub] = i;
  }
  EXPECT_GE(handed_to_1.load(), 1);
  EXPECT_EQ(view.jobs(), 50u) << "the figures are the shared lanes'";
}
