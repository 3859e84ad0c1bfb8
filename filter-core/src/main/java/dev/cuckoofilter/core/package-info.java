/**
 * The cuckoo filter of Fan, Andersen, Kaminsky and Mitzenmacher (CoNEXT 2014), in pure Java.
 * Start with {@link dev.cuckoofilter.core.CuckooFilter}: {@code create(expectedItems, fpp)} or its
 * builder, then add, look up, remove, count, merge, and read and write the binary format.
 *
 * <p>The parts, one package each: {@code hash} (how an item becomes a bucket and a fingerprint, the
 * contract of docs/HASHING.md), {@code table} (the bucket layouts: packed, semi-sorted, the stash),
 * {@code sizing} (the paper's Eq. 5-7 and Fig. 3), {@code format} (the file format of docs/FORMAT.md)
 * and {@code kryo} (a Kryo serializer writing those bytes). This package also holds the order-free
 * canonical build ({@link dev.cuckoofilter.core.CanonicalBuilder}, {@link
 * dev.cuckoofilter.core.EntryCodes}) that distributed builds and incremental updates use, and the
 * exceptions of the API.
 */
package dev.cuckoofilter.core;
