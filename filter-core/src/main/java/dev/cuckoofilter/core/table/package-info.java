/**
 * Where fingerprints live. {@link dev.cuckoofilter.core.table.BucketStorage} holds the table's bits
 * (packed buckets, little-endian, in segments so tables can pass 2 GiB); {@link
 * dev.cuckoofilter.core.table.BucketTable} is the bucket operations a filter needs, implemented by
 * {@link dev.cuckoofilter.core.table.PackedTable} (b fingerprints of f bits, compared with SWAR
 * arithmetic) and {@link dev.cuckoofilter.core.table.SemiSortedTable} (section 5.2 of the paper, one
 * bit per entry less). {@link dev.cuckoofilter.core.table.Stash} keeps the few fingerprints a failed
 * insert could not place, so nothing is lost; {@link dev.cuckoofilter.core.table.ProbeBlock} is the
 * per-thread scratch of batched lookups and updates. Internal: the layout users rely on is the file
 * format's, specified in docs/FORMAT.md.
 */
package dev.cuckoofilter.core.table;
