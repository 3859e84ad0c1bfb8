package dev.cuckoofilter.core;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Locale;
import org.junit.jupiter.api.Test;

/** {@link CuckooFilter#toString()} reads the same in every default locale: ASCII digits, a point for decimals. */
class DisplayLocaleTest {

  @Test
  void toStringIgnoresTheDefaultLocale() {
    CuckooFilter filter = CuckooFilter.create(1000, 0.01);
    for (long i = 0; i < 500; i++) {
      filter.add(i);
    }
    String expected = filter.toString();
    assertTrue(expected.matches("\\p{ASCII}+") && expected.contains("load=0."), expected);
    Locale before = Locale.getDefault();
    try {
      for (String tag : new String[] {"de-DE", "ar-EG", "hi-IN-u-nu-deva"}) {
        Locale.setDefault(Locale.forLanguageTag(tag));
        // Before: "load=0,5..." in de-DE and Arabic-Indic digits in ar-EG.
        assertTrue(expected.equals(filter.toString()), tag + ": " + filter);
      }
    } finally {
      Locale.setDefault(before);
    }
  }
}
