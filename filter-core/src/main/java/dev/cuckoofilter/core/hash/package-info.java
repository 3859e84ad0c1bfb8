/**
 * The hash contract (docs/HASHING.md): {@link dev.cuckoofilter.core.hash.CuckooHash} turns an item
 * ({@code long}, UTF-8 string, bytes) into a seeded 64-bit hash with {@link
 * dev.cuckoofilter.core.hash.XxHash64}, identical on every JVM; {@link
 * dev.cuckoofilter.core.hash.Addressing} derives from that hash the bucket, the fingerprint and the
 * alternate bucket (partial-key cuckoo hashing, Eq. 1-2 of the paper) for a table of any size.
 */
package dev.cuckoofilter.core.hash;
