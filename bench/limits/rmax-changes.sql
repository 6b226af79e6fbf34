-- Every change of a system's Rmax between two editions that list it with an Rmax: upgrade or re-run.
WITH listed AS (
  SELECT system, issued, rmax, rpeak, cores,
         LAG(issued) OVER (PARTITION BY system ORDER BY issued) AS previous_issued,
         LAG(rmax) OVER (PARTITION BY system ORDER BY issued) AS previous_rmax,
         LAG(rpeak) OVER (PARTITION BY system ORDER BY issued) AS previous_rpeak,
         LAG(cores) OVER (PARTITION BY system ORDER BY issued) AS previous_cores
  FROM entries WHERE rmax IS NOT NULL
)
SELECT system, previous_issued AS from_edition, issued AS to_edition, previous_rmax, rmax,
       CASE WHEN rpeak IS DISTINCT FROM previous_rpeak AND rpeak IS NOT NULL AND previous_rpeak IS NOT NULL
                 OR cores IS DISTINCT FROM previous_cores AND cores IS NOT NULL AND previous_cores IS NOT NULL
            THEN 'upgrade' ELSE 're-run' END AS kind
FROM listed WHERE previous_issued IS NOT NULL AND rmax <> previous_rmax
ORDER BY from_edition, system
