/**
 * A Kryo 4 serializer ({@link dev.cuckoofilter.core.kryo.CuckooFilterSerializer}) writing the
 * docs/FORMAT.md bytes. Kryo is an optional dependency of filter-core: only this package needs it.
 */
package dev.cuckoofilter.core.kryo;
