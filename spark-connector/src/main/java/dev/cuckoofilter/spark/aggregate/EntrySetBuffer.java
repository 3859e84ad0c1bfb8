package dev.cuckoofilter.spark.aggregate;

import dev.cuckoofilter.core.UnsignedLongs;
import java.util.ArrayList;
import java.util.List;

/**
 * The aggregation buffer of {@link CuckooFilterAggregate}: a set of 64-bit entries (entry codes, or item
 * hashes when the filter is sized from the data). Rows of a partition are appended to an array that is
 * compacted whenever it fills: the values appended since the last compaction are radix-sorted and merged
 * into the sorted distinct prefix, so each value is sorted once. For keys that are mostly distinct (a
 * dimension's keys) this costs less than a hash set's cache miss per row, and the result has to be sorted
 * anyway. When a compaction finds that at least half the values were repeats (a fact table's foreign
 * keys), the partition switches to a hash set, where a repeat costs one probe of a small table. What is
 * serialized and shuffled is one sorted, delta-encoded run. Merging keeps the runs and compacts them into
 * one sorted distinct run once they take eight times the space of the largest: runs that overlap (the same
 * keys in every partition) stay within about eight times their distinct content, while runs of distinct
 * keys, which compaction cannot shrink, are merged rarely instead of re-encoded every few partitions (the
 * final step merges them all once anyway). Set semantics make the result independent of partitioning,
 * partition order and retries.
 */
public final class EntrySetBuffer implements java.io.Serializable {
  private static final long serialVersionUID = 1L;
  /** Most runs kept before merged runs are compacted whatever their sizes (bounds the k-way merge). */
  private static final int MAX_RUNS = 1024;
  /** Merged runs are compacted once they take this many times the space of the largest of them. */
  private static final int COMPACT_RATIO = 8;

  private static final int FIRST_CAPACITY = 1 << 10;

  /**
   * Values added since the last flush: {@code pending[0, sortedSize)} sorted and distinct, then
   * {@code pending[sortedSize, pendingSize)} as appended, unsorted, may repeat.
   */
  private transient long[] pending;
  private transient int sortedSize;
  private transient int pendingSize;
  /** Where compactions merge to; as long as {@code pending}. */
  private transient long[] scratch;
  /** Instead of {@code pending} once the values turned out to repeat. */
  private transient LongHashSet repeated;
  private transient List<SortedRun> runs = new ArrayList<>();

  /** Java serialization (used when the buffer travels through an Encoder): the compact sorted run. */
  private void writeObject(java.io.ObjectOutputStream out) throws java.io.IOException {
    byte[] bytes = serialize();
    out.writeInt(bytes.length);
    out.write(bytes);
  }

  private void readObject(java.io.ObjectInputStream in) throws java.io.IOException {
    byte[] bytes = new byte[in.readInt()];
    in.readFully(bytes);
    runs = new ArrayList<>();
    runs.add(SortedRun.of(bytes));
  }

  public void add(long value) {
    if (repeated != null) {
      repeated.add(value);
      return;
    }
    long[] p = pending;
    if (p == null || pendingSize == p.length) {
      p = makeRoom();
      if (p == null) {
        repeated.add(value);
        return;
      }
    }
    p[pendingSize++] = value;
  }

  /**
   * Compacts the full pending array. If at least half of it were repeats, moves the values to a hash set
   * and returns null; else doubles the array if that freed less than half, so memory stays within about
   * four times the distinct values (the array and its scratch) and each value is sorted once.
   */
  private long[] makeRoom() {
    if (pending == null) {
      pending = new long[FIRST_CAPACITY];
      return pending;
    }
    int before = pendingSize;
    compactPending();
    if (pendingSize <= before / 2) {
      repeated = new LongHashSet(Math.max(FIRST_CAPACITY, pendingSize * 2));
      for (int i = 0; i < pendingSize; i++) {
        repeated.add(pending[i]);
      }
      pending = null;
      scratch = null;
      pendingSize = 0;
      sortedSize = 0;
      return null;
    }
    if (pendingSize > pending.length / 2) {
      pending = java.util.Arrays.copyOf(pending, pending.length * 2);
      scratch = null;
    }
    return pending;
  }

  /**
   * Sorts the values appended since the last compaction and merges them, without repeats, into the sorted
   * prefix: afterwards all of {@code pending[0, pendingSize)} is sorted and distinct.
   */
  private void compactPending() {
    long[] a = pending;
    int n = pendingSize;
    int sorted = sortedSize;
    if (sorted == n) {
      return;
    }
    UnsignedLongs.sort(a, sorted, n);
    if (sorted == 0) {
      pendingSize = distinctSorted(a, n);
      sortedSize = pendingSize;
      return;
    }
    long[] out = scratch;
    if (out == null || out.length != a.length) {
      out = new long[a.length];
    }
    int i = 0;
    int j = sorted;
    int d = 0;
    while (i < sorted && j < n) {
      long x = a[i];
      long y = a[j];
      int c = Long.compareUnsigned(x, y);
      long v = c <= 0 ? x : y;
      i += c <= 0 ? 1 : 0;
      j += c >= 0 ? 1 : 0;
      if (d == 0 || out[d - 1] != v) {
        out[d++] = v;
      }
    }
    for (; i < sorted; i++) {
      out[d++] = a[i]; // the prefix is distinct and above everything merged so far
    }
    for (; j < n; j++) {
      if (d == 0 || out[d - 1] != a[j]) {
        out[d++] = a[j];
      }
    }
    scratch = a;
    pending = out;
    pendingSize = d;
    sortedSize = d;
  }

  /** Removes repeats from the sorted {@code a[0, n)}; returns the distinct count. */
  private static int distinctSorted(long[] a, int n) {
    int d = 0;
    for (int i = 0; i < n; i++) {
      if (d == 0 || a[i] != a[d - 1]) {
        a[d++] = a[i];
      }
    }
    return d;
  }

  public void merge(EntrySetBuffer other) {
    other.flushPending();
    runs.addAll(other.runs);
    if (runsWantCompaction()) {
      compact();
    }
  }

  /** More than {@link #MAX_RUNS} runs, or runs taking over {@link #COMPACT_RATIO} times the largest's bytes. */
  private boolean runsWantCompaction() {
    if (runs.size() > MAX_RUNS) {
      return true;
    }
    long total = 0;
    long largest = 0;
    for (SortedRun run : runs) {
      total += run.bytes.length;
      largest = Math.max(largest, run.bytes.length);
    }
    return total > COMPACT_RATIO * largest;
  }

  /** Moves the values added since the last flush into a sorted run. */
  private void flushPending() {
    if (repeated != null) {
      long[] sorted = repeated.sortedUnsigned();
      runs.add(SortedRun.encode(sorted, sorted.length));
      repeated = null;
    } else if (pending != null) {
      compactPending();
      runs.add(SortedRun.encode(pending, pendingSize));
      pending = null;
      scratch = null;
      pendingSize = 0;
      sortedSize = 0;
    }
  }

  /** Everything as one sorted distinct run. */
  private SortedRun compact() {
    flushPending();
    if (runs.size() != 1) {
      SortedRun merged = mergeRuns(runs);
      runs.clear();
      runs.add(merged);
    }
    return runs.get(0);
  }

  public byte[] serialize() {
    return compact().bytes;
  }

  public static EntrySetBuffer deserialize(byte[] bytes) {
    EntrySetBuffer b = new EntrySetBuffer();
    b.runs.add(SortedRun.of(bytes));
    return b;
  }

  /** Number of distinct entries: a merge of the runs that only counts, holding no merged copy. */
  public long count() {
    flushPending();
    if (runs.size() == 1) {
      return runs.get(0).count;
    }
    long[] n = {0};
    mergeRuns(runs, v -> n[0]++);
    return n[0];
  }

  /**
   * A lower bound of the distinct entries held, cheap enough to ask after every {@link #add}: exact as of the
   * last compaction of the appended values (always, once they repeat), so it lags by at most one array of
   * appends, and repeats never count.
   */
  public long distinctLowerBound() {
    long n = repeated != null ? repeated.size() : sortedSize;
    for (SortedRun run : runs) {
      n = Math.max(n, run.count);
    }
    return n;
  }

  /** Number of entries held, an entry held in several runs counted in each: what {@link #forEachHeld} gives. */
  public long heldCount() {
    flushPending();
    long total = 0;
    for (SortedRun run : runs) {
      total += run.count;
    }
    return total;
  }

  /**
   * Calls {@code consumer} with the entries run after run, an entry held in several runs once for each: a
   * sequential decoding, for a consumer that needs neither order nor distinct values: far cheaper than the
   * k-way merge of {@link #forEachEntry} over the tens of runs a final step holds (docs/BENCHMARKS.md).
   */
  public void forEachHeld(java.util.function.LongConsumer consumer) {
    flushPending();
    for (SortedRun run : runs) {
      SortedRun.Cursor c = run.cursor();
      while (c.hasNext()) {
        consumer.accept(c.nextLong());
      }
    }
  }

  /**
   * Calls {@code consumer} with the distinct entries in ascending unsigned order, merging the runs on the
   * fly rather than into a compact run first (one decoding pass instead of a merge, an encoding and a
   * decoding: the final build of a filter, on the driver's critical path).
   */
  public void forEachEntry(java.util.function.LongConsumer consumer) {
    flushPending();
    if (runs.size() == 1) {
      SortedRun.Cursor c = runs.get(0).cursor();
      while (c.hasNext()) {
        consumer.accept(c.nextLong());
      }
    } else {
      mergeRuns(runs, consumer);
    }
  }

  private static SortedRun mergeRuns(List<SortedRun> runs) {
    long total = 0;
    for (SortedRun run : runs) {
      total += run.count;
    }
    SortedRun.Writer out = new SortedRun.Writer(total);
    mergeRuns(runs, out::add);
    return out.finish();
  }

  /** K-way merge with duplicates removed, through a small binary heap of cursors, into {@code out}. */
  private static void mergeRuns(List<SortedRun> runs, java.util.function.LongConsumer out) {
    int k = 0;
    SortedRun.Cursor[] heap = new SortedRun.Cursor[runs.size()];
    long[] heads = new long[runs.size()];
    for (SortedRun run : runs) {
      SortedRun.Cursor c = run.cursor();
      if (c.hasNext()) {
        heap[k] = c;
        heads[k] = c.nextLong() ^ Long.MIN_VALUE; // signed order of flipped values = unsigned order
        siftUp(heap, heads, k++);
      }
    }
    boolean any = false;
    long last = 0;
    while (k > 0) {
      long v = heads[0];
      if (!any || v != last) {
        out.accept(v ^ Long.MIN_VALUE);
        last = v;
        any = true;
      }
      if (heap[0].hasNext()) {
        heads[0] = heap[0].nextLong() ^ Long.MIN_VALUE;
      } else {
        k--;
        heap[0] = heap[k];
        heads[0] = heads[k];
      }
      siftDown(heap, heads, 0, k);
    }
  }

  private static void siftUp(SortedRun.Cursor[] heap, long[] heads, int i) {
    while (i > 0) {
      int parent = (i - 1) / 2;
      if (heads[parent] <= heads[i]) {
        return;
      }
      swap(heap, heads, i, parent);
      i = parent;
    }
  }

  private static void siftDown(SortedRun.Cursor[] heap, long[] heads, int i, int n) {
    while (true) {
      int smallest = i;
      int l = 2 * i + 1;
      int r = l + 1;
      if (l < n && heads[l] < heads[smallest]) {
        smallest = l;
      }
      if (r < n && heads[r] < heads[smallest]) {
        smallest = r;
      }
      if (smallest == i) {
        return;
      }
      swap(heap, heads, i, smallest);
      i = smallest;
    }
  }

  private static void swap(SortedRun.Cursor[] heap, long[] heads, int a, int b) {
    SortedRun.Cursor c = heap[a];
    heap[a] = heap[b];
    heap[b] = c;
    long h = heads[a];
    heads[a] = heads[b];
    heads[b] = h;
  }
}
