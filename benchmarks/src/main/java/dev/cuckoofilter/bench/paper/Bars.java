package dev.cuckoofilter.bench.paper;

import java.awt.Color;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import org.knowm.xchart.CategoryChart;
import org.knowm.xchart.CategoryChartBuilder;
import org.knowm.xchart.style.CategoryStyler;
import org.knowm.xchart.style.Styler;

/**
 * One panel of grouped bars drawn with XChart, in the style of {@link Plot}: for tables, whose rows are
 * filters rather than points on an axis (Table 3). Each bar is labelled with its value, as the table would
 * give it.
 */
final class Bars {
  private static final int WIDTH = 560;
  private static final int HEIGHT = 520;

  private final CategoryChart chart;

  Bars(String title, String yTitle) {
    chart = new CategoryChartBuilder().width(WIDTH).height(HEIGHT).title(title).yAxisTitle(yTitle).build();
    CategoryStyler styler = chart.getStyler();
    styler.setLabelsVisible(true).setLabelsRotation(90);
    // Below the bars, which may reach the top of the panel.
    styler.setChartBackgroundColor(Color.WHITE).setLegendPosition(Styler.LegendPosition.OutsideS)
        .setLegendLayout(Styler.LegendLayout.Horizontal);
    styler.setYAxisMin(0.0);
  }

  /** One bar per category; a null value leaves its place empty (a filter the paper did not measure). */
  Bars series(String name, List<String> categories, List<Double> values) {
    chart.addSeries(name, categories, values);
    return this;
  }

  /** The number format of the axis and of the bars' labels (XChart uses one for both). */
  Bars yPattern(String decimalPattern) {
    chart.getStyler().setYAxisDecimalPattern(decimalPattern);
    return this;
  }

  /** Writes the panels side by side into one PNG. */
  static void save(Path png, Bars... panels) {
    List<CategoryChart> charts = new ArrayList<>();
    for (Bars b : panels) {
      charts.add(b.chart);
    }
    Plot.saveCharts(png, charts);
  }
}
