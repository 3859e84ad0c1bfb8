package dev.cuckoofilter.spark.store;

import java.time.Instant;

/**
 * One published version of a filter location, as listed by {@link FilterStore#versions()}.
 *
 * @param location    the location's qualified URI ({@link FilterStore#location()})
 * @param version     the version number: 1 for the first version, then consecutive
 * @param createdAt   when the version was published (the publishing writer's clock)
 * @param filterBytes size of the serialized filter (docs/FORMAT.md), the length of its data file
 */
public record FilterVersion(String location, long version, Instant createdAt, long filterBytes) {

  @Override
  public String toString() {
    return location + " version " + version + " (" + filterBytes + " bytes, published " + createdAt + ")";
  }
}
