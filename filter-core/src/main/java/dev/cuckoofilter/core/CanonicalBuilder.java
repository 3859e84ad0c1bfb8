package dev.cuckoofilter.core;

import java.util.Arrays;
import java.util.function.Consumer;
import java.util.function.LongConsumer;

/**
 * Builds a filter whose bytes depend only on its parameters and the set (or multiset) of entries it
 * holds, not on the order in which items arrived: entries are inserted in ascending
 * {@linkplain EntryCodes entry-code} order (canonical bucket, then fingerprint) into an empty table.
 * Filters built from the same items on any machine, with any partitioning, are byte-identical and can be
 * compared by their bytes.
 *
 * <p>Feed it either entry codes in ascending unsigned order ({@link #addCode}, streaming, no buffering)
 * or item hashes in any order ({@link #addHash}, buffered as 8-byte codes and sorted by
 * {@link #build}); not both. Not thread-safe.
 */
public final class CanonicalBuilder {
  private final FilterParameters parameters;
  private final CuckooFilter filter;
  private final int fingerprintBits;
  private final boolean distinct;
  private long previousCode = -1;
  private boolean any;
  /** Codes collected by {@link #addHash}, sorted by {@link #build}. */
  private long[] pending = new long[0];
  private int pendingSize;
  /** Set by {@link #build}: the filter is handed out, adding more would change it behind the caller. */
  private boolean built;
  /** Set when an entry found no room: the filter holds only part of the items and is never handed out. */
  private String failure;

  /**
   * @param distinct true to store equal entries once (a set of items, the Spark build), false to keep
   *     every copy (a multiset)
   */
  public CanonicalBuilder(FilterParameters parameters, boolean distinct) {
    this.parameters = parameters;
    this.filter = CuckooFilter.emptyWith(parameters);
    this.fingerprintBits = parameters.fingerprintBits();
    this.distinct = distinct;
  }

  public FilterParameters parameters() {
    return parameters;
  }

  /**
   * Adds an entry; codes must arrive in ascending unsigned order.
   *
   * @throws IllegalArgumentException if a code is smaller than the previous one
   * @throws IllegalStateException if items were added by hash, or after {@link #build}
   * @throws FilterFullException if the filter cannot hold the entry
   */
  public void addCode(long code) {
    checkNotBuilt();
    if (pendingSize > 0) {
      throw new IllegalStateException("addCode cannot follow addHash");
    }
    if (!EntryCodes.isValid(code, fingerprintBits, parameters.bucketCount())) {
      throw new IllegalArgumentException("not an entry code of these parameters: " + Long.toUnsignedString(code));
    }
    if (any && Long.compareUnsigned(code, previousCode) < 0) {
      throw new IllegalArgumentException("entry codes must be added in ascending order");
    }
    if (distinct && any && code == previousCode) {
      return;
    }
    any = true;
    previousCode = code;
    long bucket = EntryCodes.bucket(code, fingerprintBits);
    long fp = EntryCodes.fingerprint(code, fingerprintBits);
    if (!filter.insertEntry(bucket, fp)) {
      failure = "the filter is full after " + filter.size() + " entries (" + filter.capacity()
          + " slots, " + filter.parameters().stashCapacity() + " stash): size it for more items";
      throw new FilterFullException(failure);
    }
  }

  /**
   * Adds an item by its 64-bit hash, in any order (8 bytes are buffered per item until {@link #build}).
   *
   * @throws IllegalStateException beyond {@code Integer.MAX_VALUE - 8} items (use {@link #addHashesInPasses})
   */
  public void addHash(long hash) {
    checkNotBuilt();
    if (any) {
      throw new IllegalStateException("addHash cannot follow addCode");
    }
    if (pendingSize == pending.length) {
      pending = Arrays.copyOf(pending, grownCapacity(pendingSize));
    }
    pending[pendingSize++] = EntryCodes.ofHash(parameters, hash);
  }

  /** Largest array the JVM allocates (a few header words below Integer.MAX_VALUE). */
  private static final int MAX_ARRAY = Integer.MAX_VALUE - 8;

  /**
   * The buffer size after {@code size} codes filled it: half as large again, at least 16, at most the
   * largest array (computed in long: {@code size * 1.5} passes Integer.MAX_VALUE from 1,431,655,766 on).
   *
   * @throws IllegalStateException if the buffer is already the largest array
   */
  static int grownCapacity(int size) {
    if (size >= MAX_ARRAY) {
      throw new IllegalStateException("addHash buffers at most " + MAX_ARRAY + " items (8 bytes each); feed more "
          + "with addHashesInPasses, which holds only a range of them at a time");
    }
    return (int) Math.min(MAX_ARRAY, Math.max(16L, (long) size + (size >> 1)));
  }

  /**
   * Adds the items whose hashes are {@code hashes[0, n)}, in any order. The builder takes the array over:
   * it turns the hashes into entry codes in place and sorts them there, holding no second copy.
   */
  public void addHashes(long[] hashes, int n) {
    checkNotBuilt();
    if (any || pendingSize > 0) {
      throw new IllegalStateException("addHashes must be the only call that adds items");
    }
    if (n < 0 || n > hashes.length) {
      throw new IndexOutOfBoundsException("n = " + n + " for an array of " + hashes.length);
    }
    for (int i = 0; i < n; i++) {
      hashes[i] = EntryCodes.ofHash(parameters, hashes[i]);
    }
    pending = hashes;
    pendingSize = n;
  }

  /**
   * Adds the items whose hashes {@code source} replays, in any order, holding about {@code codesPerPass}
   * entry codes at a time (8 bytes each, and as many again while they are sorted) instead of all of them
   * as {@link #addHashes} does: the hashes are replayed once per range of canonical buckets, {@code
   * ceil(count / codesPerPass)} times, and each range's codes are sorted and inserted before the next. The
   * filter is the same as with {@link #addHashes}. Must be the only call that adds items.
   *
   * @param source calls its argument with every hash, the same hashes on every call
   * @param count how many hashes {@code source} gives, or more: sets the number of ranges
   * @throws FilterFullException if the filter cannot hold the entries
   */
  public void addHashesInPasses(Consumer<LongConsumer> source, long count, int codesPerPass) {
    checkNotBuilt();
    if (any || pendingSize > 0) {
      throw new IllegalStateException("addHashesInPasses must be the only call that adds items");
    }
    if (count < 0 || codesPerPass <= 0) {
      throw new IllegalArgumentException("count " + count + " and codesPerPass " + codesPerPass
          + " must be non-negative and positive");
    }
    long buckets = parameters.bucketCount();
    long passes = Math.max(1, Math.min(buckets, (count + codesPerPass - 1) / codesPerPass));
    int expectedPerPass = (int) Math.min(Integer.MAX_VALUE - 8, count / passes + count / passes / 16 + 16);
    RangeCodes range = new RangeCodes(expectedPerPass);
    for (long pass = 1; pass <= passes; pass++) {
      // Ranges of canonical buckets with about count / passes entries each: a canonical bucket is the
      // smaller of two about uniform ones, below x with probability 1 - (1 - x/m)^2, so the k-th range
      // ends at m (1 - sqrt(1 - k / passes)) (the last at m).
      range.from = range.to;
      range.to = pass == passes ? buckets
          : Math.min(buckets, (long) (buckets * (1 - Math.sqrt(1 - (double) pass / passes))));
      range.size = 0;
      source.accept(range);
      UnsignedLongs.sort(range.codes, 0, range.size);
      for (int i = 0; i < range.size; i++) {
        addCode(range.codes[i]);
      }
    }
  }

  /**
   * The buffer size for one range's codes after {@code size} filled it: half as large again plus 16, at
   * most the largest array (in long: the int sum wrapped to a negative size from 1,431,655,766 on).
   *
   * @throws IllegalStateException if the buffer is already the largest array
   */
  static int grownRangeCapacity(int size) {
    if (size >= MAX_ARRAY) {
      throw new IllegalStateException("more than " + size + " entries in one range of buckets: use a smaller "
          + "codesPerPass (or a count closer to the number of hashes)");
    }
    return (int) Math.min(MAX_ARRAY, (long) size + (size >> 1) + 16);
  }

  /** Collects the codes whose canonical bucket is in {@code [from, to)}. */
  private final class RangeCodes implements LongConsumer {
    long[] codes;
    int size;
    long from;
    long to;

    RangeCodes(int capacity) {
      codes = new long[capacity];
    }

    @Override
    public void accept(long hash) {
      long code = EntryCodes.ofHash(parameters, hash);
      long bucket = EntryCodes.bucket(code, fingerprintBits);
      if (bucket >= from && bucket < to) {
        if (size == codes.length) {
          codes = Arrays.copyOf(codes, grownRangeCapacity(size));
        }
        codes[size++] = code;
      }
    }
  }

  /**
   * The finished filter. The builder must not be used afterwards.
   *
   * @throws FilterFullException if the filter cannot hold the buffered entries
   * @throws IllegalStateException if an earlier add or build failed for want of room (its filter lacks items)
   */
  public CuckooFilter build() {
    checkNotFailed();
    if (pendingSize > 0) {
      UnsignedLongs.sort(pending, 0, pendingSize);
      long[] codes = pending;
      int n = pendingSize;
      pending = null;
      pendingSize = 0;
      for (int i = 0; i < n; i++) {
        addCode(codes[i]);
      }
    }
    built = true;
    return filter;
  }

  private void checkNotBuilt() {
    checkNotFailed();
    if (built) {
      throw new IllegalStateException("build() was called: the builder takes no more items");
    }
  }

  private void checkNotFailed() {
    if (failure != null) {
      throw new IllegalStateException("an earlier add failed (" + failure + "); the builder holds only part of the "
          + "items");
    }
  }

  /**
   * The same entries as {@code filter} in canonical layout: the filter that a canonical build of its
   * items gives (equal filters in content become equal in bytes).
   *
   * @throws FilterFullException if the entries, inserted in canonical order, do not all fit (possible for
   *     a filter filled close to its maximum load along another insertion order); {@code filter} is
   *     unchanged and callers keep it as it is
   * @throws IllegalArgumentException if the filter holds more entries than one Java array can sort
   */
  public static CuckooFilter canonical(CuckooFilter filter) {
    if (filter.size() > Integer.MAX_VALUE - 8) {
      throw new IllegalArgumentException("canonical layout needs the " + filter.size()
          + " entries in memory; at most " + (Integer.MAX_VALUE - 8) + " are supported");
    }
    long[] codes = new long[(int) filter.size()];
    int[] n = {0};
    filter.forEachEntryCode(code -> codes[n[0]++] = code);
    UnsignedLongs.sort(codes, 0, n[0]);
    CanonicalBuilder builder = new CanonicalBuilder(filter.parameters(), false);
    for (int i = 0; i < n[0]; i++) {
      builder.addCode(codes[i]);
    }
    CuckooFilter result = builder.build();
    result.addFailedInserts(filter.failedInserts());
    return result;
  }
}
