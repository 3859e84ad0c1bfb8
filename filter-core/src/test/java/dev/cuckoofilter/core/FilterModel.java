package dev.cuckoofilter.core;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cuckoofilter.core.hash.Addressing;
import dev.cuckoofilter.core.hash.CuckooHash;
import java.util.HashMap;
import java.util.Map;
import java.util.stream.LongStream;

/**
 * An exact model of a cuckoo filter's content. Items that share both buckets and the fingerprint are
 * indistinguishable to any filter, so the model counts copies per (canonical bucket, fingerprint) pair;
 * at that level a cuckoo filter is exact: count, lookup and remove must agree with the model.
 */
final class FilterModel {
  final Map<Long, Integer> pairs = new HashMap<>();
  final Map<Long, Integer> items = new HashMap<>();
  final CuckooFilter filter;
  long total;

  FilterModel(CuckooFilter filter) {
    this.filter = filter;
  }

  long pairOf(long item) {
    FilterParameters p = filter.parameters();
    long h = CuckooHash.hashLong(item, p.seed());
    long b = Addressing.bucketIndex(h, p.bucketCount());
    long fp = Addressing.fingerprint(h, p.fingerprintBits());
    long c = Math.min(b, Addressing.alternate(b, fp, p.bucketCount()));
    // Times an odd constant (one to one): Long.hashCode of (c << 32) ^ fp alone is c ^ fp, and the pairs of
    // large tables piled up in a few HashMap bins.
    return ((c << 32) ^ fp) * 0x9E3779B97F4A7C15L;
  }

  int pairCount(long item) {
    return pairs.getOrDefault(pairOf(item), 0);
  }

  /** Applies add to filter and model; returns the filter's answer. */
  boolean add(long item) {
    boolean ok = filter.add(item);
    if (ok) {
      recordAdded(item);
    }
    return ok;
  }

  /** Records an item that reached the filter another way (e.g. through a merge); the filter is not touched. */
  void recordAdded(long item) {
    pairs.merge(pairOf(item), 1, Integer::sum);
    items.merge(item, 1, Integer::sum);
    total++;
  }

  boolean remove(long item) {
    boolean expected = pairCount(item) > 0;
    boolean removed = filter.remove(item);
    assertEquals(expected, removed, () -> "remove(" + item + ") with " + pairCount(item) + " matching copies");
    if (removed) {
      pairs.merge(pairOf(item), -1, Integer::sum);
      items.computeIfPresent(item, (k, v) -> v == 1 ? null : v - 1);
      total--;
    }
    return removed;
  }

  void checkItem(long item) {
    int expected = pairCount(item);
    assertEquals(expected, filter.count(item), () -> "count(" + item + ")");
    assertEquals(expected > 0, filter.mightContain(item), () -> "mightContain(" + item + ")");
  }

  /** Full check: size, every pair's count, no false negative for any item the model holds. */
  void checkAll() {
    checkAll(filter);
  }

  /**
   * The filter's entries, as {@link EntryCodes}, are exactly the codes of the model's items, each copy
   * under the canonical bucket that {@link Addressing#alternate} gives: a filter whose alternate buckets
   * came from anywhere else (a wrong offset table) still finds its own items, but fails this.
   */
  void checkEntryCodes() {
    FilterParameters p = filter.parameters();
    LongStream.Builder expected = LongStream.builder();
    items.forEach((item, copies) -> {
      long code = EntryCodes.ofHash(p, CuckooHash.hashLong(item, p.seed()));
      for (int i = 0; i < copies; i++) {
        expected.add(code);
      }
    });
    LongStream.Builder actual = LongStream.builder();
    filter.forEachEntryCode(actual);
    assertArrayEquals(expected.build().sorted().toArray(), actual.build().sorted().toArray(), "entry codes");
  }

  /** {@link #checkAll()} of another filter with the same parameters, e.g. a deserialized copy. */
  void checkAll(CuckooFilter other) {
    assertEquals(total, other.size(), "size");
    for (long item : items.keySet()) {
      assertTrue(other.mightContain(item), () -> "false negative for " + item);
      assertEquals(pairCount(item), other.count(item), () -> "count(" + item + ")");
    }
  }
}
