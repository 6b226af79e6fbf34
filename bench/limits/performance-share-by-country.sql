-- Per TOP500 edition and country: systems, Rmax sum and its share of the edition's Rmax.
WITH per_country AS (
  SELECT edition, issued, COALESCE(country, 'unknown') AS country, COUNT(DISTINCT system) AS systems,
         SUM(rmax) AS rmax
  FROM entries WHERE rmax IS NOT NULL GROUP BY edition, issued, COALESCE(country, 'unknown')
), totals AS (
  SELECT edition, SUM(rmax) AS total FROM entries WHERE rmax IS NOT NULL GROUP BY edition
)
SELECT DISTINCT per_country.issued AS edition, per_country.country, labels.label, systems, per_country.rmax,
       ROUND(per_country.rmax / total * 10000) / 100 AS share_percent
FROM per_country JOIN totals USING (edition) LEFT JOIN labels ON labels.node = per_country.country
ORDER BY edition, per_country.rmax DESC
