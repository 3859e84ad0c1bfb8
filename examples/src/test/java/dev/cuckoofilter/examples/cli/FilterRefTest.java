package dev.cuckoofilter.examples.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;

/** {@code LOCATION[@VERSION]} arguments. */
class FilterRefTest {
  @Test
  void aVersionFollowsTheLastAt() {
    assertEquals(new FilterRef("s3a://lake/filters/customers", 12), FilterRef.parse("s3a://lake/filters/customers@12"));
    assertEquals(new FilterRef("/tmp/f", 0), FilterRef.parse("/tmp/f"));
  }

  @Test
  void anAtElsewhereIsPartOfTheLocation() {
    assertEquals(new FilterRef("hdfs://etl@namenode:8020/filters/x", 0),
        FilterRef.parse("hdfs://etl@namenode:8020/filters/x"));
    assertEquals(new FilterRef("/tmp/f@latest", 0), FilterRef.parse("/tmp/f@latest"));
    assertEquals(new FilterRef("/tmp/f@", 0), FilterRef.parse("/tmp/f@"));
  }

  @Test
  void versionsStartAtOne() {
    assertEquals("versions are numbered from 1, got 0",
        assertThrows(IllegalArgumentException.class, () -> FilterRef.parse("/tmp/f@0")).getMessage());
    String tooLarge = "/tmp/f@99999999999999999999";
    assertEquals("version 99999999999999999999 is too large",
        assertThrows(IllegalArgumentException.class, () -> FilterRef.parse(tooLarge)).getMessage());
  }
}
