package dev.cuckoofilter.spark.update;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cuckoofilter.core.CuckooFilter;
import dev.cuckoofilter.spark.SparkTestSession;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.SplittableRandom;
import org.apache.spark.sql.Dataset;
import org.apache.spark.sql.Row;
import org.apache.spark.sql.SparkSession;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * Incremental updates keep a filter equal to a fresh build of the changed dataset: same bytes, no false
 * negatives, the false-positive rate of its load.
 */
class FilterUpdaterTest {
  static SparkSession spark;
  static final long EXPECTED = 20_000;
  static final double FPP = 0.001;

  @BeforeAll
  static void start() {
    spark = SparkTestSession.local();
  }

  @AfterAll
  static void stop() {
    spark.stop();
  }

  /** Rows (key, row id) as a DataFrame; the same key may occur on several rows. */
  static Dataset<Row> rows(List<long[]> rows) {
    List<Row> list = new ArrayList<>();
    for (long[] r : rows) {
      list.add(org.apache.spark.sql.RowFactory.create(r[0], r[1]));
    }
    return spark.createDataFrame(list, new org.apache.spark.sql.types.StructType()
        .add("k", "long").add("row", "long"));
  }

  static CuckooFilter fresh(Dataset<Row> data) throws Exception {
    return CuckooFilter.fromByteArray((byte[]) data.selectExpr("cuckoo_filter(k, " + EXPECTED + ", " + FPP + ")")
        .first().get(0));
  }

  @Test
  void updatesGiveTheBytesOfAFreshBuildInBothForms() throws Exception {
    List<long[]> before = new ArrayList<>();
    long row = 0;
    for (long k = 0; k < 5000; k++) {
      before.add(new long[] {k, row++});
      if (k % 3 == 0) {
        before.add(new long[] {k, row++}); // duplicate key
      }
    }
    List<long[]> deleted = new ArrayList<>();
    List<long[]> after = new ArrayList<>();
    for (long[] r : before) {
      // Delete one row of every 3rd key (those keep their duplicate) and all rows of every 5th key.
      boolean drop = (r[0] % 5 == 0) || (r[0] % 3 == 0 && r[1] % 2 == 0);
      (drop ? deleted : after).add(r);
    }
    List<long[]> added = new ArrayList<>();
    for (long k = 4000; k < 7000; k++) {
      added.add(new long[] {k, row++}); // existing keys, new keys, and re-added deleted keys (4000, 4005, ...)
    }
    added.add(new long[] {6999, row++}); // a duplicate inside the change
    after.addAll(added);

    CuckooFilter old = fresh(rows(before));
    CuckooFilter expected = fresh(rows(after));
    UpdateResult viaChanges = FilterUpdater.update(old, ChangeSet.of(rows(added), rows(deleted), rows(after)), "k");
    assertFalse(viaChanges.rebuilt());
    assertArrayEquals(expected.toByteArray(), viaChanges.filter().toByteArray(), viaChanges.summary());
    assertTrue(viaChanges.entriesRemoved() > 0 && viaChanges.entriesAdded() > 0 && viaChanges.deletedKeptKeys() > 0,
        viaChanges.summary());
    UpdateResult viaSnapshots = FilterUpdater.update(old, ChangeSet.between(rows(before), rows(after)), "k");
    assertArrayEquals(expected.toByteArray(), viaSnapshots.filter().toByteArray(), viaSnapshots.summary());
    // The input filter is untouched.
    assertArrayEquals(fresh(rows(before)).toByteArray(), old.toByteArray());
  }

  @Test
  void emptyChangesAndDeletesOfUnknownKeysChangeNothing() throws Exception {
    List<long[]> data = new ArrayList<>();
    for (long k = 0; k < 3000; k++) {
      data.add(new long[] {k * 11, k});
    }
    CuckooFilter f = fresh(rows(data));
    UpdateResult empty = FilterUpdater.update(f, ChangeSet.of(rows(List.of()), rows(List.of()), rows(data)), "k");
    assertArrayEquals(f.toByteArray(), empty.filter().toByteArray());
    // Deleting rows whose keys were never in the dataset must not remove anything (it could remove
    // another key's entry).
    List<long[]> strangers = new ArrayList<>();
    for (long k = 0; k < 20_000; k++) {
      strangers.add(new long[] {k * 11 + 5, k});
    }
    UpdateResult unknown = FilterUpdater.update(f, ChangeSet.of(rows(List.of()), rows(strangers), rows(data)), "k");
    assertEquals(0, unknown.entriesRemoved());
    assertArrayEquals(f.toByteArray(), unknown.filter().toByteArray());
  }

  @Test
  void aChangeLargerThanTheFilterRebuildsIt() throws Exception {
    List<long[]> small = new ArrayList<>();
    for (long k = 0; k < 100; k++) {
      small.add(new long[] {k, k});
    }
    CuckooFilter f = CuckooFilter.fromByteArray((byte[]) rows(small).selectExpr("cuckoo_filter(k, 120, 0.001)").first()
        .get(0));
    List<long[]> big = new ArrayList<>(small);
    for (long k = 100; k < 10_100; k++) {
      big.add(new long[] {k, k});
    }
    UpdateResult r = FilterUpdater.update(f, ChangeSet.between(rows(small), rows(big)), "k");
    assertTrue(r.rebuilt(), r.summary());
    assertTrue(r.rebuildReason().contains("sized for"), r.rebuildReason());
    for (long k = 0; k < 10_100; k++) {
      assertTrue(r.filter().mightContain(k));
    }
    assertTrue(r.filter().parameters().expectedItems() >= 15_000, "room to grow: " + r.filter());
    assertEquals(0.001, r.filter().parameters().targetFpp(), 1e-12);
  }

  @Test
  void storedFiltersAreUpdatedAsNewVersions(@org.junit.jupiter.api.io.TempDir java.nio.file.Path dir) throws Exception {
    List<long[]> before = new ArrayList<>();
    for (long k = 0; k < 2000; k++) {
      before.add(new long[] {k, k});
    }
    dev.cuckoofilter.spark.store.FilterStore store = dev.cuckoofilter.spark.store.FilterStore.open(
        dir.resolve("filters").toUri().toString(), spark);
    dev.cuckoofilter.spark.SparkCuckooFilter built = dev.cuckoofilter.spark.CuckooFilters.builder(rows(before))
        .keys("k").expectedItems(EXPECTED).fpp(FPP).build();
    assertEquals(1, built.saveTo(store, "initial build").version());
    List<long[]> added = List.of(new long[] {5000, 5000}, new long[] {5001, 5001});
    List<long[]> after = new ArrayList<>(before.subList(100, before.size()));
    after.addAll(added);
    FilterUpdater.Published published = FilterUpdater.update(store,
        ChangeSet.of(rows(added), rows(before.subList(0, 100)), rows(after)), "orders delta 2026-11-21");
    assertEquals(2, published.version().version());
    var latest = store.readLatest();
    assertEquals(1, latest.metadata().parentVersion());
    assertEquals("orders delta 2026-11-21", latest.metadata().source());
    assertArrayEquals(fresh(rows(after)).toByteArray(), latest.filter().toByteArray());
    // The change's key column must have the filter's type.
    Dataset<Row> strings = rows(after).selectExpr("CAST(k AS STRING) AS k", "row");
    IllegalArgumentException e = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
        () -> FilterUpdater.update(store, ChangeSet.between(strings, strings), "bad"));
    assertTrue(e.getMessage().contains("key column k"), e.getMessage());
    // Every dataset of the change is checked, not only the current one: added keys of another type would
    // be inserted as other entries, and the filter would miss them.
    Dataset<Row> addedStrings = rows(List.of(new long[] {7000, 7000})).selectExpr("CAST(k AS STRING) AS k", "row");
    Dataset<Row> withAdded = rows(after).union(rows(List.of(new long[] {7000, 7000})));
    IllegalArgumentException addedRefused = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
        () -> FilterUpdater.update(store, ChangeSet.of(addedStrings, rows(after).limit(0), withAdded), "bad"));
    assertEquals("key column k is string in the added rows of the change but bigint in the filter at "
        + store.location(), addedRefused.getMessage());
    Dataset<Row> deletedInts = rows(before.subList(100, 110)).selectExpr("CAST(k AS INT) AS k", "row");
    // int hashes like bigint: accepted
    assertEquals(3, FilterUpdater.update(store, ChangeSet.of(rows(after).limit(0), deletedInts,
        rows(after.subList(10, after.size()))), "ints").version().version());
    Dataset<Row> deletedStrings = rows(before.subList(110, 120)).selectExpr("CAST(k AS STRING) AS k", "row");
    IllegalArgumentException deleted = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
        () -> FilterUpdater.update(store, ChangeSet.of(rows(after).limit(0), deletedStrings,
            rows(after.subList(20, after.size()))), "bad"));
    assertTrue(deleted.getMessage().contains("in the deleted rows of the change"), deleted.getMessage());
    Dataset<Row> noKey = rows(after).selectExpr("row");
    IllegalArgumentException missing = org.junit.jupiter.api.Assertions.assertThrows(IllegalArgumentException.class,
        () -> FilterUpdater.update(store, ChangeSet.between(noKey, rows(after)), "bad"));
    assertTrue(missing.getMessage().startsWith("the snapshot before of the change have no key column k"),
        missing.getMessage());
    assertEquals(3, store.readLatest().version().version(), "nothing else was published");
  }

  /** A long random sequence of changes against the exact key set. */
  @Test
  void randomUpdateSequencesNeverLoseAKey() throws Exception {
    SplittableRandom r = new SplittableRandom(2024);
    Map<Long, Long> current = new HashMap<>(); // row id -> key
    long nextRow = 0;
    for (int i = 0; i < 4000; i++) {
      current.put(nextRow++, r.nextLong(8000));
    }
    CuckooFilter filter = fresh(rows(asRows(current)));
    for (int step = 0; step < 8; step++) {
      List<long[]> deleted = new ArrayList<>();
      List<long[]> added = new ArrayList<>();
      List<Long> ids = new ArrayList<>(current.keySet());
      int deletes = r.nextInt(0, 1500);
      for (int i = 0; i < deletes && !ids.isEmpty(); i++) {
        long id = ids.remove(r.nextInt(ids.size()));
        deleted.add(new long[] {current.remove(id), id});
      }
      int adds = r.nextInt(0, 1500);
      for (int i = 0; i < adds; i++) {
        long key = r.nextBoolean() && !deleted.isEmpty() ? deleted.get(r.nextInt(deleted.size()))[0] : r.nextLong(12_000);
        current.put(nextRow, key);
        added.add(new long[] {key, nextRow++});
      }
      Dataset<Row> now = rows(asRows(current));
      UpdateResult result = FilterUpdater.update(filter, step % 2 == 0
          ? ChangeSet.of(rows(added), rows(deleted), now)
          : ChangeSet.between(rows(asRows(previous(current, deleted, added))), now), "k");
      filter = result.filter();
      // No false negatives; false positives at the filter's own rate.
      java.util.Set<Long> keys = new java.util.HashSet<>(current.values());
      for (long k : keys) {
        assertTrue(filter.mightContain(k), "step " + step + ": lost key " + k);
      }
      int fp = 0;
      int probes = 0;
      for (long k = 100_000; k < 300_000; k++) {
        probes++;
        fp += filter.mightContain(k) ? 1 : 0;
      }
      double rate = (double) fp / probes;
      double expected = filter.expectedFpp();
      assertTrue(rate <= expected + 5 * Math.sqrt(expected / probes) + 1e-5, "step " + step + ": fpp " + rate + " vs "
          + expected);
      if (!result.rebuilt()) {
        assertArrayEquals(fresh(now).toByteArray(), filter.toByteArray(), "step " + step);
      }
    }
  }

  static List<long[]> asRows(Map<Long, Long> rows) {
    List<long[]> out = new ArrayList<>();
    rows.forEach((id, key) -> out.add(new long[] {key, id}));
    return out;
  }

  /** The rows before a change, rebuilt from the rows after it. */
  static Map<Long, Long> previous(Map<Long, Long> after, List<long[]> deleted, List<long[]> added) {
    Map<Long, Long> before = new HashMap<>(after);
    for (long[] a : added) {
      before.remove(a[1]);
    }
    for (long[] d : deleted) {
      before.put(d[1], d[0]);
    }
    return before;
  }
}
