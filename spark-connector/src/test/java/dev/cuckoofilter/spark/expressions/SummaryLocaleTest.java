package dev.cuckoofilter.spark.expressions;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import dev.cuckoofilter.core.CuckooFilter;
import dev.cuckoofilter.spark.update.UpdateResult;
import java.util.Locale;
import org.junit.jupiter.api.Test;

/**
 * The summaries shown in plans ({@code explain()}) and in job output read the same in every default locale of
 * the driver: ASCII digits and a point for decimals, as the job output's other lines and the store's file names.
 */
class SummaryLocaleTest {

  @Test
  void planAndUpdateSummariesIgnoreTheDefaultLocale() {
    CuckooFilter filter = CuckooFilter.create(1000, 0.01);
    for (long i = 0; i < 500; i++) {
      filter.add(i);
    }
    UpdateResult update = new UpdateResult(filter, 500, 20, 3, false, null);
    String plan = FilterHandle.summary(filter);
    String job = update.summary();
    assertTrue(plan.matches("\\p{ASCII}+") && plan.contains(" bits/item"), plan);
    assertTrue(job.matches("\\p{ASCII}+") && job.contains("load 0."), job);
    Locale before = Locale.getDefault();
    try {
      for (String tag : new String[] {"de-DE", "ar-EG", "hi-IN-u-nu-deva"}) {
        Locale.setDefault(Locale.forLanguageTag(tag));
        // Before: "load 0,500" and "12,63 bits/item" in de-DE, Arabic-Indic digits in ar-EG.
        assertEquals(plan, FilterHandle.summary(filter), tag);
        assertEquals(job, update.summary(), tag);
      }
    } finally {
      Locale.setDefault(before);
    }
  }
}
