-- Per TOP500 edition: systems listed with a rank, their Rmax sum, and the first-ranked system with its Rmax.
WITH listed AS (
  SELECT edition, issued, COUNT(DISTINCT system) AS entries, SUM(rmax) AS rmax_sum
  FROM entries WHERE rank IS NOT NULL GROUP BY edition, issued
), top AS (
  SELECT edition, system, MIN(name) AS name, MIN(description) AS description, ANY_VALUE(rmax) AS top_rmax
  FROM entries WHERE rank = 1 AND rmax IS NOT NULL GROUP BY edition, system
)
SELECT listed.issued AS edition, entries, rmax_sum, COALESCE(top.name, top.description, labels.label) AS top_system, top.top_rmax
FROM listed LEFT JOIN top USING (edition) LEFT JOIN labels ON labels.node = top.system
ORDER BY listed.issued
