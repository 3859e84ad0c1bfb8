package dev.cuckoofilter.core;

import dev.cuckoofilter.core.format.FilterFormat;
import dev.cuckoofilter.core.format.FilterImage;
import dev.cuckoofilter.core.hash.Addressing;
import dev.cuckoofilter.core.hash.CuckooHash;
import dev.cuckoofilter.core.sizing.Sizing;
import dev.cuckoofilter.core.table.BucketStorage;
import dev.cuckoofilter.core.table.BucketTable;
import dev.cuckoofilter.core.table.ProbeBlock;
import dev.cuckoofilter.core.table.Stash;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.io.InputStream;
import java.io.InvalidObjectException;
import java.io.ObjectInputStream;
import java.io.ObjectOutputStream;
import java.io.OutputStream;
import java.io.Serializable;
import java.io.UncheckedIOException;
import java.util.Locale;
import java.util.Objects;

/**
 * A cuckoo filter (Fan, Andersen, Kaminsky, Mitzenmacher: "Cuckoo Filter: Practically Better Than
 * Bloom", CoNEXT 2014): an approximate set membership structure that supports deletion. A lookup of an
 * item that was added (and not removed) always answers {@code true}; a lookup of any other item answers
 * {@code true} with a small probability, the false-positive rate.
 *
 * <h2>How it works</h2>
 * Each item is hashed ({@link CuckooHash}) to a bucket and an f-bit fingerprint; its second bucket is
 * derived from the first bucket and the fingerprint alone ({@link Addressing}), so fingerprints can be
 * moved between their two buckets without the item (partial-key cuckoo hashing, Algorithms 1-3). An
 * insert that finds both buckets full kicks a random entry to its other bucket, up to
 * {@code maxKicks} times. If that chain fails, the homeless fingerprint goes to a small stash; if the
 * stash is full too, every kick of the chain is undone, the insert returns {@code false}, and the
 * filter is exactly as it was: <b>a failed insert never loses an item</b>.
 *
 * <h2>Sizing</h2>
 * {@link #create(long, double)} picks the bucket size, fingerprint width and bucket count for a number of
 * items and a false-positive rate (Eq. 5-7 of the paper); {@link #builder()} sets each parameter. Any
 * table size works (no rounding to powers of two), so space is {@code f / load} bits per item.
 *
 * <h2>Multisets and deletion</h2>
 * Adding an item again stores another copy of its fingerprint, up to {@code 2 * bucketSize} copies;
 * {@link #count(long)} returns the number of matching copies and {@link #remove(long)} removes one.
 * Only remove items that were added: removing an item that was never added may remove another item's
 * matching fingerprint, as in every deletable filter.
 *
 * <h2>Thread safety</h2>
 * Not thread-safe for modification. Lookups ({@code mightContain}, {@code count}) and statistics do not
 * modify the filter, so any number of threads may use a filter concurrently as long as no thread
 * modifies it and it was safely published (for example a Spark broadcast variable).
 *
 * <h2>Determinism</h2>
 * There is no unseeded randomness: kick choices are derived from the fingerprint, the bucket and the
 * step, so the same parameters and the same sequence of operations produce byte-identical filters on
 * every JVM, whatever the in-memory segmentation.
 *
 * <h2>Serialization</h2>
 * {@link #writeTo}, {@link #toByteArray}, Java serialization and the Kryo serializer
 * ({@code dev.cuckoofilter.core.kryo.CuckooFilterSerializer}) all produce the versioned, checksummed
 * format of {@code docs/FORMAT.md}. Kryo uses its serializer even when the class is not registered
 * ({@code Encoders.kryo}, Spark's Kryo serializer without the connector's registrator).
 */
// Every field is transient (Java serialization goes through the binary format), so Kryo's default
// FieldSerializer would write nothing and read back a hollow filter; Kryo honours this annotation for
// unregistered classes. Without Kryo on the class path the annotation is simply not seen.
@com.esotericsoftware.kryo.DefaultSerializer(dev.cuckoofilter.core.kryo.CuckooFilterSerializer.class)
public final class CuckooFilter implements Serializable {
  private static final long serialVersionUID = 1L;

  /** Kick chain length before giving up, as in the paper. */
  public static final int DEFAULT_MAX_KICKS = 500;
  /** Fingerprints that may wait in the stash after a failed kick chain. */
  public static final int DEFAULT_STASH_CAPACITY = 4;
  /** False-positive rate used when a builder sets none. */
  public static final double DEFAULT_FPP = 0.01;
  /** Seed used when a builder sets none. */
  public static final long DEFAULT_SEED = 0L;
  /** Largest {@link #serializedSize()} that {@link #toByteArray} can return (a Java array); larger filters stream. */
  public static final long MAX_BYTE_ARRAY_SIZE = Integer.MAX_VALUE - 16;

  private final transient FilterParameters parameters;
  private final transient BucketTable table;
  private final transient Stash stash;
  private final transient long bucketCount;
  private final transient long fingerprintRange; // 2^f - 1
  private final transient long seed;
  private final transient int bucketSize;
  private final transient int bucketSizeLog2;
  private final transient int maxKicks;
  /**
   * {@link Addressing#offset} of every fingerprint when the filter is large enough for the table to be
   * small beside it (see {@link #offsetTable}), else null. Looking the offset up takes three dependent
   * multiplications off the way to every alternate bucket: 1.2x more lookups per second one call per key
   * on a 101 MB filter, 1.4x in cache (BENCHMARKS.md, "Alternate offsets from a table").
   */
  private final transient int[] alternateOffsets;
  private transient long size;
  private transient long failedInserts;

  /** The kick chain of the insert in progress, kept to undo it if it fails (write path only). */
  private transient long[] kickBuckets;
  private transient int[] kickSlots;
  private transient long[] kickEvicted;
  private transient long[] kickEntries;

  private CuckooFilter(FilterParameters parameters, BucketTable table, Stash stash, long size, long failedInserts) {
    this.parameters = parameters;
    this.table = table;
    this.stash = stash;
    this.bucketCount = parameters.bucketCount();
    this.fingerprintRange = (1L << parameters.fingerprintBits()) - 1;
    this.seed = parameters.seed();
    this.bucketSize = parameters.bucketSize();
    this.bucketSizeLog2 = Integer.numberOfTrailingZeros(bucketSize);
    this.maxKicks = parameters.maxKicks();
    this.alternateOffsets = offsetTable(parameters);
    this.size = size;
    this.failedInserts = failedInserts;
  }

  private static CuckooFilter empty(FilterParameters p, int maxSegmentBytes) {
    BucketTable table = BucketTable.create(p.semiSorted(), p.bucketCount(), p.bucketSize(), p.fingerprintBits(),
        maxSegmentBytes);
    return new CuckooFilter(p, table, new Stash(p.stashCapacity()), 0, 0);
  }

  private static CuckooFilter fromImage(FilterImage image) {
    FilterParameters p = image.parameters();
    BucketTable table = BucketTable.wrap(p.semiSorted(), image.storage(), p.bucketSize(), p.fingerprintBits());
    return new CuckooFilter(p, table, image.stash(), image.itemCount(), image.failedInserts());
  }

  /**
   * A filter for {@code expectedItems} items with a false-positive rate of at most {@code fpp} when it
   * holds that many: the bucket size and fingerprint width that need the fewest bits per item, and a
   * table of exactly the buckets needed.
   */
  public static CuckooFilter create(long expectedItems, double fpp) {
    return builder().expectedItems(expectedItems).fpp(fpp).build();
  }

  /** A builder to set the parameters one by one. */
  public static Builder builder() {
    return new Builder();
  }

  // ------------------------------------------------------------------ items

  /** Adds a 64-bit integer (any integral type widens to it and hashes alike). */
  public boolean add(long item) {
    return addHash(CuckooHash.hashLong(item, seed));
  }

  /** Adds a string (hashed as its UTF-8 bytes). */
  public boolean add(String item) {
    return addHash(CuckooHash.hashString(item, seed));
  }

  /** Adds a byte string. */
  public boolean add(byte[] item) {
    return addHash(CuckooHash.hashBytes(item, seed));
  }

  /**
   * Adds an item given its 64-bit hash under this filter's hash contract ({@link CuckooHash} with
   * {@link #seed()}).
   *
   * @return true if the item was stored; false if the filter is too full or already holds
   *     {@code 2 * bucketSize} copies of the item's fingerprint in its buckets and the stash (then only
   *     {@link #failedInserts()} changed)
   */
  public boolean addHash(long hash) {
    long i1 = Addressing.bucketIndex(hash, bucketCount);
    long fp = fingerprintOf(hash);
    return insert(i1, alternate(i1, fp), fp);
  }

  public boolean mightContain(long item) {
    return mightContainHash(CuckooHash.hashLong(item, seed));
  }

  public boolean mightContain(String item) {
    return mightContainHash(CuckooHash.hashString(item, seed));
  }

  public boolean mightContain(byte[] item) {
    return mightContainHash(CuckooHash.hashBytes(item, seed));
  }

  /** Lookup by 64-bit hash; true if the item may have been added, false if it certainly was not. */
  public boolean mightContainHash(long hash) {
    if (stash.size() != 0) {
      return mightContainWithStash(hash);
    }
    long i1 = Addressing.bucketIndex(hash, bucketCount);
    long fp = fingerprintOf(hash);
    return table.containsEither(i1, alternate(i1, fp), fp);
  }

  /** Per-thread scratch for batched lookups and updates, so they allocate nothing (lookups may be concurrent). */
  private static final ThreadLocal<ProbeBlock> PROBE_BLOCKS = ThreadLocal.withInitial(ProbeBlock::new);

  /**
   * Looks up {@code items[from, to)} and stores each answer in {@code results} at the same index;
   * returns how many answers are true. Same answers as {@link #mightContain(long)} item by item, but
   * faster on large filters: the buckets of a block of keys are computed first and then probed in one
   * tight loop, so many memory accesses overlap.
   */
  public int mightContainAll(long[] items, int from, int to, boolean[] results) {
    return probeAll(items, from, to, results, false);
  }

  /** {@link #mightContainAll(long[], int, int, boolean[])} over whole arrays. */
  public int mightContainAll(long[] items, boolean[] results) {
    return probeAll(items, 0, items.length, results, false);
  }

  /** Batched {@link #mightContainHash}: {@code hashes[from, to)} are 64-bit item hashes. */
  public int mightContainHashes(long[] hashes, int from, int to, boolean[] results) {
    return probeAll(hashes, from, to, results, true);
  }

  private int probeAll(long[] keys, int from, int to, boolean[] results, boolean hashed) {
    checkRange(from, to, keys.length, hashed ? "hashes" : "items");
    checkRange(from, to, results.length, "results");
    if (stash.size() != 0) {
      int found = 0;
      for (int i = from; i < to; i++) {
        boolean r = mightContainHash(hashed ? keys[i] : CuckooHash.hashLong(keys[i], seed));
        results[i] = r;
        found += r ? 1 : 0;
      }
      return found;
    }
    ProbeBlock block = PROBE_BLOCKS.get();
    int found = 0;
    for (int base = from; base < to; base += ProbeBlock.SIZE) {
      int n = locate(keys, base, to, hashed, block);
      found += table.containsEitherAll(block, n, results, base);
    }
    return found;
  }

  /** {@link Objects#checkFromToIndex}, with a message that names the arguments and the array. */
  private static void checkRange(int from, int to, int length, String array) {
    if (from < 0 || from > to || to > length) {
      throw new IndexOutOfBoundsException("from " + from + " and to " + to + " must satisfy 0 <= from <= to <= "
          + array + ".length, which is " + length);
    }
  }

  /** Fills {@code block} with the buckets and fingerprints of the keys from {@code base}; returns how many. */
  private int locate(long[] keys, int base, int to, boolean hashed, ProbeBlock block) {
    int n = Math.min(ProbeBlock.SIZE, to - base);
    long[] buckets1 = block.buckets1;
    long[] buckets2 = block.buckets2;
    long[] fps = block.fingerprints;
    for (int k = 0; k < n; k++) {
      long key = keys[base + k];
      long hash = hashed ? key : CuckooHash.hashLong(key, seed);
      long i1 = Addressing.bucketIndex(hash, bucketCount);
      long fp = fingerprintOf(hash);
      buckets1[k] = i1;
      buckets2[k] = alternate(i1, fp);
      fps[k] = fp;
    }
    return n;
  }

  /** The rare case: fingerprints wait in the stash. Kept out of the hot path's registers. */
  private boolean mightContainWithStash(long hash) {
    long i1 = Addressing.bucketIndex(hash, bucketCount);
    long fp = fingerprintOf(hash);
    long i2 = alternate(i1, fp);
    return table.containsEither(i1, i2, fp) || stash.count(Math.min(i1, i2), fp) != 0;
  }

  /**
   * Removes one copy of the item's fingerprint.
   *
   * @return true if a copy was removed, false if none was present
   */
  public boolean remove(long item) {
    return removeHash(CuckooHash.hashLong(item, seed));
  }

  public boolean remove(String item) {
    return removeHash(CuckooHash.hashString(item, seed));
  }

  public boolean remove(byte[] item) {
    return removeHash(CuckooHash.hashBytes(item, seed));
  }

  /** Removes one copy of the fingerprint of the item with this hash. */
  public boolean removeHash(long hash) {
    long i1 = Addressing.bucketIndex(hash, bucketCount);
    long fp = fingerprintOf(hash);
    return removeFingerprint(i1, alternate(i1, fp), fp);
  }

  // ------------------------------------------------------------------ batched updates

  /**
   * Adds {@code items[from, to)} in order and returns how many were stored: the same filter, byte for
   * byte, and the same answers as {@link #add(long)} item by item, but faster on filters larger than the
   * CPU's caches. The buckets of a block of items are read ahead in a loop that does nothing else, so
   * their cache misses overlap, and the inserts that follow find them in cache. An item that is not
   * stored (the filter is full) is counted in {@link #failedInserts()}, as by {@code add}.
   */
  public int addAll(long[] items, int from, int to) {
    return updateAll(items, from, to, false, true);
  }

  /** {@link #addAll(long[], int, int)} over the whole array. */
  public int addAll(long[] items) {
    return updateAll(items, 0, items.length, false, true);
  }

  /** Batched {@link #addHash}: {@code hashes[from, to)} are 64-bit item hashes. */
  public int addHashes(long[] hashes, int from, int to) {
    return updateAll(hashes, from, to, true, true);
  }

  /**
   * Removes one copy of each of {@code items[from, to)} in order and returns how many copies were
   * removed: the same filter, byte for byte, as {@link #remove(long)} item by item, read ahead as
   * {@link #addAll(long[], int, int)} does.
   */
  public int removeAll(long[] items, int from, int to) {
    return updateAll(items, from, to, false, false);
  }

  /** {@link #removeAll(long[], int, int)} over the whole array. */
  public int removeAll(long[] items) {
    return updateAll(items, 0, items.length, false, false);
  }

  /** Batched {@link #removeHash}: {@code hashes[from, to)} are 64-bit item hashes. */
  public int removeHashes(long[] hashes, int from, int to) {
    return updateAll(hashes, from, to, true, false);
  }

  private int updateAll(long[] keys, int from, int to, boolean hashed, boolean add) {
    checkRange(from, to, keys.length, hashed ? "hashes" : "items");
    ProbeBlock block = PROBE_BLOCKS.get();
    long[] buckets1 = block.buckets1;
    long[] buckets2 = block.buckets2;
    long[] fps = block.fingerprints;
    int done = 0;
    for (int base = from; base < to; base += ProbeBlock.SIZE) {
      int n = locate(keys, base, to, hashed, block);
      table.readBucketsAhead(block, n, add);
      // In order, one at a time: each update sees the ones before it, exactly as single calls would.
      // The first bucket alone settles most updates, and then the second is not touched at all.
      for (int k = 0; k < n; k++) {
        long i1 = buckets1[k];
        long fp = fps[k];
        boolean changed;
        if (add && table.tryInsert(i1, fp)) {
          size++;
          changed = true;
        } else if (add) {
          changed = insert(i1, buckets2[k], fp);
        } else if (table.removeOne(i1, fp)) {
          changed = removedFrom(i1);
        } else {
          changed = removeFingerprint(i1, buckets2[k], fp);
        }
        done += changed ? 1 : 0;
      }
    }
    return done;
  }

  /** Algorithm 3: removes one copy of {@code fp} from its buckets or the stash. */
  private boolean removeFingerprint(long i1, long i2, long fp) {
    int from = table.removeEither(i1, i2, fp);
    if (from != 0) {
      return removedFrom(from == 1 ? i1 : i2);
    }
    if (stash.size() != 0 && stash.remove(Math.min(i1, i2), fp)) {
      size--;
      return true;
    }
    return false;
  }

  /** Bookkeeping after a copy left {@code bucket}: a stashed fingerprint may move into the freed entry. */
  private boolean removedFrom(long bucket) {
    size--;
    if (stash.size() != 0) {
      refillFromStash(bucket);
    }
    return true;
  }

  /**
   * Number of stored copies matching the item: its own copies plus those of any other item with the
   * same buckets and fingerprint.
   */
  public int count(long item) {
    return countHash(CuckooHash.hashLong(item, seed));
  }

  public int count(String item) {
    return countHash(CuckooHash.hashString(item, seed));
  }

  public int count(byte[] item) {
    return countHash(CuckooHash.hashBytes(item, seed));
  }

  public int countHash(long hash) {
    long i1 = Addressing.bucketIndex(hash, bucketCount);
    long fp = fingerprintOf(hash);
    long i2 = alternate(i1, fp);
    int n = table.count(i1, fp) + table.count(i2, fp);
    if (stash.size() != 0) {
      n += stash.count(Math.min(i1, i2), fp);
    }
    return n;
  }

  // -------------------------------------------------------------- algorithm

  private long fingerprintOf(long hash) {
    return (((hash & 0xFFFFFFFFL) * fingerprintRange) >>> 32) + 1;
  }

  /** The table of alternate offsets when it costs at most 1/64 of the table's memory (16 KB for f = 12). */
  private static int[] offsetTable(FilterParameters p) {
    int f = p.fingerprintBits();
    boolean worthIt = f <= 16 && p.bucketCount() <= Integer.MAX_VALUE
        && p.bucketCount() * p.bucketBits() / 8 >= 64L * (4L << f);
    return worthIt ? Addressing.offsets(f, p.bucketCount()) : null;
  }

  /** True if this filter looks alternate offsets up in {@link #offsetTable} (tests check which path ran). */
  boolean usesOffsetTable() {
    return alternateOffsets != null;
  }

  /** {@link Addressing#alternate}, with the offset looked up when the filter keeps a table of them. */
  private long alternate(long bucket, long fp) {
    int[] offsets = alternateOffsets;
    return offsets != null
        ? Addressing.alternateAt(bucket, offsets[(int) fp], bucketCount)
        : Addressing.alternate(bucket, fp, bucketCount);
  }

  private long canonicalBucket(long bucket, long fp) {
    return Math.min(bucket, alternate(bucket, fp));
  }

  // ------------------------------------------------------------ entry codes

  /**
   * Adds the entry with this {@linkplain EntryCodes code} (another copy if present): what {@code add}
   * does for an item with that code. For callers that track items by code, such as distributed builds
   * and incremental updates.
   *
   * @return false if the filter is too full (nothing was changed)
   */
  public boolean addEntryCode(long code) {
    long bucket = checkedBucket(code);
    return insertEntry(bucket, EntryCodes.fingerprint(code, parameters.fingerprintBits()));
  }

  /** True if an entry with this code is stored: exact, no false positives at the entry level. */
  public boolean containsEntryCode(long code) {
    long bucket = checkedBucket(code);
    long fp = EntryCodes.fingerprint(code, parameters.fingerprintBits());
    long alternate = alternate(bucket, fp);
    return table.containsEither(bucket, alternate, fp) || (stash.size() != 0 && stash.count(bucket, fp) != 0);
  }

  /** Removes one entry with this code; false if there is none (then nothing else is touched). */
  public boolean removeEntryCode(long code) {
    long bucket = checkedBucket(code);
    long fp = EntryCodes.fingerprint(code, parameters.fingerprintBits());
    return removeFingerprint(bucket, alternate(bucket, fp), fp);
  }

  private long checkedBucket(long code) {
    if (!EntryCodes.isValid(code, parameters.fingerprintBits(), bucketCount)) {
      throw new IllegalArgumentException("not an entry code of this filter's parameters: "
          + Long.toUnsignedString(code));
    }
    return EntryCodes.bucket(code, parameters.fingerprintBits());
  }

  /**
   * Stores fingerprint {@code fp} of an item whose buckets are {@code bucket} and its alternate: the
   * entry-level insert used by merges and canonical builds.
   */
  boolean insertEntry(long bucket, long fp) {
    // Entries come here in bucket order (canonical builds, merges), so the first bucket is the one the
    // last entries went to, in cache: the alternate, a random read, is needed only when it is full. The
    // same slot as insert() would choose (its first empty slot), so the same bytes.
    if (table.tryInsert(bucket, fp)) {
      size++;
      return true;
    }
    return insert(bucket, alternate(bucket, fp), fp);
  }

  /** Empty filter with these parameters (used by canonical builds). */
  static CuckooFilter emptyWith(FilterParameters p) {
    return empty(p, BucketStorage.DEFAULT_MAX_SEGMENT_BYTES);
  }

  /**
   * Calls {@code consumer} with the entry code ({@link EntryCodes}) of every stored fingerprint, table
   * entries in bucket order then the stash: the content of the filter independent of its layout.
   */
  public void forEachEntryCode(java.util.function.LongConsumer consumer) {
    long[] entries = new long[bucketSize];
    int f = parameters.fingerprintBits();
    for (long b = 0; b < bucketCount; b++) {
      int n = table.read(b, entries);
      for (int k = 0; k < n; k++) {
        consumer.accept(EntryCodes.code(Math.min(b, alternate(b, entries[k])), entries[k], f));
      }
    }
    for (int i = 0; i < stash.size(); i++) {
      consumer.accept(EntryCodes.code(stash.bucket(i), stash.fingerprint(i), f));
    }
  }

  /**
   * Algorithm 1 with a stash and an undo of failed kick chains. Only the common case, an empty entry in
   * one of the two buckets, is here: kept this small, it is inlined into the caller's loop (the whole
   * algorithm in one method was too big for HotSpot to inline, and every add paid a call).
   */
  private boolean insert(long i1, long i2, long fp) {
    if (table.tryInsertEither(i1, i2, fp)) {
      size++;
      return true;
    }
    return insertByKicking(i1, i2, fp);
  }

  /** {@link #insert} when both buckets are full: the duplicate limit, then the kick chain. */
  private boolean insertByKicking(long i1, long i2, long fp) {
    // The 2b-copy duplicate limit. Copies in the stash count too: with another fingerprint in the
    // bucket pair, kick chains would otherwise push further copies into the stash without end.
    int copies = table.count(i1, fp) + table.count(i2, fp);
    if (stash.size() != 0) {
      copies += stash.count(Math.min(i1, i2), fp);
    }
    if (copies >= 2 * bucketSize) {
      failedInserts++;
      return false;
    }
    ensureKickJournal();
    long bucket = (kickRandom(fp, i1, -1) >>> 63) == 0 ? i1 : i2;
    long current = fp;
    int steps = 0;
    while (steps < maxKicks) {
      int slot = chooseKickSlot(bucket, (int) (kickRandom(current, bucket, steps) >>> (64 - bucketSizeLog2)));
      long evicted = table.swap(bucket, slot, current);
      if (steps == kickBuckets.length) {
        growKickJournal();
      }
      kickBuckets[steps] = bucket;
      kickSlots[steps] = slot;
      kickEvicted[steps] = evicted;
      steps++;
      current = evicted;
      bucket = alternate(bucket, current);
      if (table.tryInsert(bucket, current)) {
        size++;
        return true;
      }
    }
    if (stash.add(canonicalBucket(bucket, current), current)) {
      size++;
      return true;
    }
    // Undo the chain in reverse: every entry goes back where it was, byte for byte.
    for (int s = steps - 1; s >= 0; s--) {
      long placed = s == 0 ? fp : kickEvicted[s - 1];
      table.undoSwap(kickBuckets[s], kickSlots[s], placed, kickEvicted[s]);
    }
    failedInserts++;
    return false;
  }

  /**
   * Chooses which entry of the full {@code bucket} to kick, looking one move ahead: the first entry,
   * from {@code preferred} on, whose alternate bucket has room, so the chain ends with this kick; else
   * {@code preferred}, a step of the paper's random walk. The alternates are all read before any is
   * tested, so their cache misses overlap instead of costing one miss per step of the walk. (Looking
   * two moves ahead was measured slower: 16 more misses per step at high load.)
   */
  private int chooseKickSlot(long bucket, int preferred) {
    long[] entries = kickEntries;
    int n = table.read(bucket, entries);
    int movable = 0;
    for (int k = 0; k < n; k++) {
      movable |= table.hasEmpty(alternate(bucket, entries[k])) ? 1 << k : 0;
    }
    if (movable == 0) {
      return preferred;
    }
    int mask = (1 << bucketSize) - 1;
    int rotated = ((movable >>> preferred) | (movable << (bucketSize - preferred))) & mask;
    return (preferred + Integer.numberOfTrailingZeros(rotated)) & (bucketSize - 1);
  }

  /** Deterministic pseudo-random bits for kick decisions: a mix of the fingerprint, bucket and step. */
  private static long kickRandom(long fp, long bucket, int step) {
    long x = (bucket + step * 0x9E3779B97F4A7C15L) ^ (fp * 0xC2B2AE3D27D4EB4FL);
    x = (x ^ (x >>> 32)) * 0xD6E8FEB86659FD93L;
    return x ^ (x >>> 32);
  }

  private void ensureKickJournal() {
    if (kickEntries == null) {
      kickEntries = new long[bucketSize];
    }
    if (kickBuckets == null) {
      int initial = Math.max(1, Math.min(maxKicks, 1024));
      kickBuckets = new long[initial];
      kickSlots = new int[initial];
      kickEvicted = new long[initial];
    }
  }

  private void growKickJournal() {
    int n = Math.min(maxKicks, kickBuckets.length * 2);
    kickBuckets = java.util.Arrays.copyOf(kickBuckets, n);
    kickSlots = java.util.Arrays.copyOf(kickSlots, n);
    kickEvicted = java.util.Arrays.copyOf(kickEvicted, n);
  }

  /** After a delete freed a slot in {@code bucket}, moves a stashed fingerprint that belongs there. */
  private void refillFromStash(long bucket) {
    for (int i = 0; i < stash.size(); i++) {
      long c = stash.bucket(i);
      long fp = stash.fingerprint(i);
      if ((c == bucket || alternate(c, fp) == bucket) && table.tryInsert(bucket, fp)) {
        stash.removeAt(i);
        return;
      }
    }
  }

  // ------------------------------------------------------------------ merge

  /**
   * True if {@code other} has the same variant, bucket size, fingerprint width, bucket count, hash
   * algorithm and seed, so it can be merged into this filter.
   */
  public boolean isCompatible(CuckooFilter other) {
    return parameters.compatibilityDifference(other.parameters) == null;
  }

  /**
   * Adds every fingerprint stored in {@code other} (a compatible filter) to this filter, using only the
   * stored fingerprints and their buckets. All or nothing: if some fingerprint cannot be placed, this
   * filter is restored to exactly its previous state (a copy of the table is kept during the merge) and
   * a {@link FilterFullException} is thrown.
   *
   * @throws IncompatibleFilterException naming the parameter that differs
   * @throws FilterFullException if the merged filter would overflow; this filter is unchanged
   */
  public void mergeInPlace(CuckooFilter other) {
    Objects.requireNonNull(other, "other");
    String difference = parameters.compatibilityDifference(other.parameters);
    if (difference != null) {
      throw new IncompatibleFilterException("cannot merge incompatible cuckoo filters: " + difference);
    }
    if (other.size == 0) {
      return;
    }
    CuckooFilter source = other == this ? copy() : other;
    long room = capacity() + stash.capacity();
    if (size + source.size > room) {
      throw new FilterFullException("merge would overflow: " + size + " + " + source.size + " items exceed the "
          + capacity() + " entries and " + stash.capacity() + " stash slots; this filter is unchanged");
    }
    BucketStorage savedTable = table.storage().copy();
    Stash savedStash = stash.copy();
    long savedSize = size;
    long savedFailures = failedInserts;
    long[] entries = new long[bucketSize];
    for (long b = 0; b < bucketCount; b++) {
      int n = source.table.read(b, entries);
      for (int k = 0; k < n; k++) {
        if (!insert(b, alternate(b, entries[k]), entries[k])) {
          table.storage().copyFrom(savedTable);
          stash.copyFrom(savedStash);
          size = savedSize;
          failedInserts = savedFailures;
          throw new FilterFullException("merge would overflow: could not place the fingerprints of bucket " + b
              + " after merging part of the " + source.size + " items into " + savedSize
              + "; this filter is unchanged");
        }
      }
    }
    for (int i = 0; i < source.stash.size(); i++) {
      long c = source.stash.bucket(i);
      long fp = source.stash.fingerprint(i);
      if (!insert(c, alternate(c, fp), fp)) {
        table.storage().copyFrom(savedTable);
        stash.copyFrom(savedStash);
        size = savedSize;
        failedInserts = savedFailures;
        throw new FilterFullException("merge would overflow: could not place the stashed fingerprints of the other "
            + "filter; this filter is unchanged");
      }
    }
  }

  /** An independent copy of this filter. */
  public CuckooFilter copy() {
    return new CuckooFilter(parameters, table.copy(), stash.copy(), size, failedInserts);
  }

  /** Removes every item (keeps the parameters and the failed-insert count). */
  public void clear() {
    table.storage().clear();
    stash.clear();
    size = 0;
  }

  // ------------------------------------------------------------- statistics

  /** Items stored (copies of fingerprints, in the table and the stash). */
  public long size() {
    return size;
  }

  /** Entries in the table: {@code bucketCount * bucketSize}. The load factor is {@code size / capacity}. */
  public long capacity() {
    return bucketCount * bucketSize;
  }

  /**
   * {@code size() / capacity()}: the fraction of table entries in use, the paper's load factor alpha.
   * Stashed items count too, so a full table with a non-empty stash gives a little more than 1.
   */
  public double loadFactor() {
    return (double) size / capacity();
  }

  /** Bits of the table: {@code bucketCount * bucketBits} (the header and stash are not counted). */
  public long bitSize() {
    return bucketCount * parameters.bucketBits();
  }

  /** Table bits per stored item (infinite when empty). */
  public double bitsPerItem() {
    return size == 0 ? Double.POSITIVE_INFINITY : (double) bitSize() / size;
  }

  /**
   * Expected false-positive rate of a lookup with the items now stored, stash included:
   * {@code 1 - (1 - 2 / (m (2^f - 1)))^size()} ({@link Sizing#falsePositiveRate(int, long, long)}), which is
   * {@code 1 - exp(-2 b alpha / (2^f - 1))} at load alpha in all but the smallest tables.
   */
  public double expectedFpp() {
    return Sizing.falsePositiveRate(parameters.fingerprintBits(), bucketCount, size);
  }

  /**
   * Number of inserts ({@code add}, {@code addHash}, {@code addEntryCode}) that returned false. A merge that
   * fails restores this counter with the rest of the filter.
   */
  public long failedInserts() {
    return failedInserts;
  }

  void addFailedInserts(long n) {
    failedInserts += n;
  }

  /** Fingerprints currently waiting in the stash. */
  public int stashSize() {
    return stash.size();
  }

  /** Items the filter was sized for (0 if built from an explicit bucket count without it). */
  public long expectedItems() {
    return parameters.expectedItems();
  }

  /** The hash seed; items hash under {@link CuckooHash} with this seed. */
  public long seed() {
    return seed;
  }

  /** All parameters, as recorded in the binary format. */
  public FilterParameters parameters() {
    return parameters;
  }

  /** Bytes of the serialized form. */
  public long serializedSize() {
    return FilterFormat.serializedSize(parameters, stash.size());
  }

  // ---------------------------------------------------------- serialization

  /** Writes the binary format ({@code docs/FORMAT.md}) to {@code out}, streaming; does not close it. */
  public void writeTo(OutputStream out) throws IOException {
    FilterFormat.write(new FilterImage(parameters, size, failedInserts, stash, table.storage()), out);
  }

  /**
   * Reads a filter written by {@link #writeTo}, consuming exactly its bytes.
   *
   * @throws FilterFormatException if the bytes are not a valid filter (the message says why)
   */
  public static CuckooFilter readFrom(InputStream in) throws IOException {
    return fromImage(FilterFormat.read(in, -1, false, BucketStorage.DEFAULT_MAX_SEGMENT_BYTES));
  }

  /**
   * Reads a filter whose serialized form is exactly {@code length} bytes (for example a whole file):
   * a header declaring any other size is rejected before the table is allocated. Reads at most
   * {@code length} bytes.
   *
   * @throws IllegalArgumentException if {@code length} is negative
   */
  public static CuckooFilter readFrom(InputStream in, long length) throws IOException {
    if (length < 0) {
      throw new IllegalArgumentException("length must be the filter's size in bytes (0 or more), got " + length);
    }
    return fromImage(FilterFormat.read(in, length, true, BucketStorage.DEFAULT_MAX_SEGMENT_BYTES));
  }

  /** The serialized form in one array. */
  public byte[] toByteArray() {
    long n = serializedSize();
    if (n > MAX_BYTE_ARRAY_SIZE) {
      throw new IllegalStateException("filter is " + n + " bytes, too large for a byte array; use writeTo");
    }
    ArrayOutput out = new ArrayOutput((int) n);
    try {
      writeTo(out);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return out.bytes;
  }

  /** Reads a filter from exactly the bytes of {@code bytes}. */
  public static CuckooFilter fromByteArray(byte[] bytes) throws IOException {
    return fromImage(FilterFormat.read(new ByteArrayInputStream(bytes), bytes.length, true,
        BucketStorage.DEFAULT_MAX_SEGMENT_BYTES));
  }

  /** An OutputStream over a pre-sized array: one copy of the table, not two. */
  private static final class ArrayOutput extends OutputStream {
    final byte[] bytes;
    int position;

    ArrayOutput(int size) {
      bytes = new byte[size];
    }

    @Override
    public void write(int b) {
      bytes[position++] = (byte) b;
    }

    @Override
    public void write(byte[] b, int off, int len) {
      System.arraycopy(b, off, bytes, position, len);
      position += len;
    }
  }

  private Object writeReplace() {
    return new SerializedForm(this);
  }

  private void readObject(ObjectInputStream in) throws InvalidObjectException {
    throw new InvalidObjectException("CuckooFilter is deserialized through its serialized form");
  }

  /** Java serialization proxy: the stream carries the binary format itself. */
  private static final class SerializedForm implements Serializable {
    private static final long serialVersionUID = 1L;
    private transient CuckooFilter filter;

    SerializedForm(CuckooFilter filter) {
      this.filter = filter;
    }

    private void writeObject(ObjectOutputStream out) throws IOException {
      out.defaultWriteObject();
      filter.writeTo(out);
    }

    private void readObject(ObjectInputStream in) throws IOException, ClassNotFoundException {
      in.defaultReadObject();
      filter = CuckooFilter.readFrom(in);
    }

    private Object readResolve() {
      return filter;
    }
  }

  // ----------------------------------------------------------------- object

  /** Equal when the serialized forms are equal: same parameters, counters, stash and table bits. */
  @Override
  public boolean equals(Object o) {
    if (this == o) {
      return true;
    }
    if (!(o instanceof CuckooFilter)) {
      return false;
    }
    CuckooFilter other = (CuckooFilter) o;
    return parameters.equals(other.parameters)
        && size == other.size
        && failedInserts == other.failedInserts
        && stash.sameEntries(other.stash)
        && table.storage().sameBits(other.table.storage());
  }

  @Override
  public int hashCode() {
    return Objects.hash(parameters, size);
  }

  @Override
  public String toString() {
    return String.format(Locale.ROOT,
        "CuckooFilter{%s, b=%d, f=%d, buckets=%d, items=%d, load=%.4f, bits/item=%.2f, fpp=%.3g}",
        parameters.variant(), bucketSize, parameters.fingerprintBits(), bucketCount, size, loadFactor(),
        bitsPerItem(), expectedFpp());
  }

  // ---------------------------------------------------------------- builder

  /**
   * Sets filter parameters one by one; anything left unset is derived: from {@code expectedItems} and
   * {@code fpp} as in {@link CuckooFilter#create}, bucket size 4 when only the fingerprint width is set.
   */
  public static final class Builder {
    private long expectedItems = -1;
    private double fpp = Double.NaN;
    private int bucketSize = -1;
    private int fingerprintBits = -1;
    private long bucketCount = -1;
    private boolean semiSorted;
    private long seed = DEFAULT_SEED;
    private int maxKicks = DEFAULT_MAX_KICKS;
    private int stashCapacity = DEFAULT_STASH_CAPACITY;
    private int maxSegmentBytes = BucketStorage.DEFAULT_MAX_SEGMENT_BYTES;

    private Builder() {}

    /** Items the filter must hold at its false-positive rate. */
    public Builder expectedItems(long expectedItems) {
      if (expectedItems <= 0) {
        throw new IllegalArgumentException("expectedItems must be positive, got " + expectedItems);
      }
      this.expectedItems = expectedItems;
      return this;
    }

    /** Target false-positive rate when full, in (0, 1). Default {@value CuckooFilter#DEFAULT_FPP}. */
    public Builder fpp(double fpp) {
      if (!(fpp > 0.0 && fpp < 1.0)) {
        throw new IllegalArgumentException("fpp must be in (0, 1), got " + fpp);
      }
      this.fpp = fpp;
      return this;
    }

    /** Entries per bucket: 2, 4 or 8. */
    public Builder bucketSize(int bucketSize) {
      if (bucketSize != 2 && bucketSize != 4 && bucketSize != 8) {
        throw new IllegalArgumentException("bucketSize must be 2, 4 or 8, got " + bucketSize);
      }
      this.bucketSize = bucketSize;
      return this;
    }

    /** Fingerprint width in bits: 4 to 32. */
    public Builder fingerprintBits(int fingerprintBits) {
      if (fingerprintBits < 4 || fingerprintBits > 32) {
        throw new IllegalArgumentException("fingerprintBits must be between 4 and 32, got " + fingerprintBits);
      }
      this.fingerprintBits = fingerprintBits;
      return this;
    }

    /** Semi-sorted buckets (bucket size 4 only): one bit per item less for the same false-positive rate. */
    public Builder semiSorted(boolean semiSorted) {
      this.semiSorted = semiSorted;
      return this;
    }

    /** Hash seed. Filters must share it to be merged. */
    public Builder seed(long seed) {
      this.seed = seed;
      return this;
    }

    /** Longest kick chain an insert tries (default {@value CuckooFilter#DEFAULT_MAX_KICKS}). */
    public Builder maxKicks(int maxKicks) {
      if (maxKicks < 0 || maxKicks > FilterFormat.MAX_KICKS) {
        throw new IllegalArgumentException("maxKicks must be between 0 and " + FilterFormat.MAX_KICKS + ", got "
            + maxKicks);
      }
      this.maxKicks = maxKicks;
      return this;
    }

    /** Stash slots for fingerprints whose kick chain failed, 0 to 64 (default {@value CuckooFilter#DEFAULT_STASH_CAPACITY}). */
    public Builder stashCapacity(int stashCapacity) {
      if (stashCapacity < 0 || stashCapacity > Stash.MAX_CAPACITY) {
        throw new IllegalArgumentException("stashCapacity must be between 0 and " + Stash.MAX_CAPACITY + ", got "
            + stashCapacity);
      }
      this.stashCapacity = stashCapacity;
      return this;
    }

    /** An explicit number of buckets (even, 2 to 2^32) instead of sizing from {@code expectedItems}. */
    public Builder bucketCount(long bucketCount) {
      if (bucketCount < 2 || bucketCount > Sizing.MAX_BUCKETS || (bucketCount & 1) != 0) {
        throw new IllegalArgumentException("bucketCount must be an even number from 2 to " + Sizing.MAX_BUCKETS
            + ", got " + bucketCount);
      }
      this.bucketCount = bucketCount;
      return this;
    }

    /**
     * Largest in-memory segment of the table (default 1 GiB). Does not change the filter or its
     * serialized form; small values exist to test segment boundaries.
     */
    public Builder maxSegmentBytes(int maxSegmentBytes) {
      if (maxSegmentBytes < 64) {
        throw new IllegalArgumentException("maxSegmentBytes must be at least 64, got " + maxSegmentBytes);
      }
      this.maxSegmentBytes = maxSegmentBytes;
      return this;
    }

    public CuckooFilter build() {
      return empty(parameters(), maxSegmentBytes);
    }

    /**
     * The parameters {@link #build()} would use, without allocating the table.
     *
     * @throws IllegalStateException if neither {@code expectedItems} nor {@code bucketCount} was set
     * @throws IllegalArgumentException if the settings conflict or cannot be met, naming the setting and
     *     what it accepts: {@code semiSorted} with a bucket size other than 4; an {@code fpp} below what
     *     32-bit fingerprints deliver, or that an explicit {@code fingerprintBits} does not deliver at the
     *     design load (or, in an explicit {@code bucketCount} that they fill further, with the expected items); more {@code expectedItems} than 2^32 buckets (or an explicit {@code bucketCount}
     *     and the stash) hold
     */
    public FilterParameters parameters() {
      if (expectedItems < 0 && bucketCount < 0) {
        throw new IllegalStateException("set expectedItems (or an explicit bucketCount) before build()");
      }
      if (semiSorted && bucketSize >= 0 && bucketSize != 4) {
        throw new IllegalArgumentException("semiSorted requires bucketSize 4, got " + bucketSize);
      }
      int b = semiSorted ? 4 : bucketSize;
      int f = fingerprintBits;
      double target = Double.isNaN(fpp) ? DEFAULT_FPP : fpp;
      if (f < 0 && bucketCount < 0) {
        Sizing.Choice choice = b < 0
            ? Sizing.choose(expectedItems, target, semiSorted)
            : Sizing.forBucketSize(expectedItems, b, target, semiSorted);
        if (choice == null) {
          throw fppTooSmall(target, b, Sizing.smallestFpp(expectedItems, b));
        }
        b = choice.bucketSize();
        f = choice.fingerprintBits();
      } else {
        b = b < 0 ? 4 : b;
        // Before the width: for more items than the table holds, no width meets the rate, and that error would
        // name fpp instead of what is wrong.
        if (bucketCount > 0 && expectedItems > bucketCount * b + stashCapacity) {
          throw new IllegalArgumentException("expectedItems " + expectedItems + " conflicts with bucketCount "
              + bucketCount + ": it must be at most the " + (bucketCount * b) + " entries and " + stashCapacity
              + " stash slots of the table (or leave bucketCount unset)");
        }
        if (f < 0) {
          f = Sizing.fingerprintBitsForTable(b, target, bucketCount);
          while (f > 0 && ratedFpp(b, f, bucketCount) > target) {
            f = f < 32 ? f + 1 : -1; // the expected items fill the table past its design load
          }
          if (f < 0) {
            throw fppTooSmall(target, b, ratedFpp(b, 32, bucketCount));
          }
        }
      }
      long m = bucketCount > 0 ? bucketCount : Sizing.bucketCount(expectedItems, b, f);
      double designFpp = ratedFpp(b, f, m);
      if (!Double.isNaN(fpp) && fingerprintBits >= 0 && designFpp > fpp) {
        throw new IllegalArgumentException("fpp " + fpp + " conflicts with fingerprintBits " + f + ": " + f
            + "-bit fingerprints in " + (bucketCount > 0 ? m + " " : "") + "buckets of " + b + " give " + designFpp
            + " at the design load" + (bucketCount > 0 && expectedItems > 0 ? " or with the " + expectedItems
            + " expected items" : "") + ", so fpp must be at least that (or leave fpp or fingerprintBits unset)");
      }
      double recordedFpp = Double.isNaN(fpp) ? designFpp : fpp;
      return new FilterParameters(semiSorted, b, f, m, CuckooHash.ALGORITHM_ID, seed, maxKicks, stashCapacity,
          Math.max(0, expectedItems), recordedFpp);
    }

    /**
     * The false-positive rate a table of {@code m} buckets is sized for: that of its design load, or of the
     * expected items if they fill an explicit table further (a table sized from them holds them at or below its
     * design load).
     */
    private double ratedFpp(int b, int f, long m) {
      double design = Sizing.designFalsePositiveRate(b, f, m);
      return expectedItems > 0 ? Math.max(design, Sizing.falsePositiveRate(f, m, expectedItems)) : design;
    }

    private static IllegalArgumentException fppTooSmall(double fpp, int bucketSize, double smallest) {
      return new IllegalArgumentException("fpp " + fpp + " is below what 32-bit fingerprints can deliver with "
          + "bucketSize " + bucketSize + ": fpp must be at least " + smallest);
    }
  }
}
