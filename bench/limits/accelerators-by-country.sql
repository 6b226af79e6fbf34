-- Accelerators per country, split per tier (the counting of queries/accelerators-by-country.rq at its defaults):
-- each machine once, its best accelerator quantities, systems that exist, the country of the system or of its
-- site, each system as sure as the weakest of the claims it is counted with.
WITH best AS (
  SELECT about, property, value, "tierRank" AS rank FROM claims WHERE best = 'true'
), per_system AS (
  SELECT components.system, SUM(CAST(claims.value AS DOUBLE)) AS total, MIN(claims."tierRank") AS quantities_rank,
         COUNT(DISTINCT claims.claim) AS claim_count
  FROM components JOIN claims ON claims.about = components.component
  WHERE components.role = 'https://w3id.org/hpckg/vocab/role/accelerator' AND claims.best = 'true'
    AND claims.property = 'https://w3id.org/hpckg/ontology#quantity' AND COALESCE(claims.excluded, 'false') <> 'true'
  GROUP BY components.system
), counted AS (
  SELECT per_system.*, status.value AS status, status.rank AS status_rank,
         system_country.value AS system_country, system_country.rank AS system_country_rank,
         site.rank AS site_rank, site_country.value AS site_country, site_country.rank AS site_country_rank
  FROM per_system
  LEFT JOIN best AS status ON status.about = per_system.system
                          AND status.property = 'https://w3id.org/hpckg/ontology#status'
  LEFT JOIN best AS system_country ON system_country.about = per_system.system
                                  AND system_country.property = 'https://w3id.org/hpckg/ontology#country'
  LEFT JOIN (best AS site JOIN best AS site_country
               ON site_country.about = site.value AND site_country.property = 'https://w3id.org/hpckg/ontology#country')
         ON site.about = per_system.system AND site.property = 'https://w3id.org/hpckg/ontology#site'
  WHERE per_system.system NOT IN (SELECT system FROM duplicates)
    AND (status.value IS NULL OR status.value NOT IN ('https://w3id.org/hpckg/vocab/status/planned',
         'https://w3id.org/hpckg/vocab/status/under-construction', 'https://w3id.org/hpckg/vocab/status/decommissioned'))
), ranked AS (
  SELECT system, total, claim_count, COALESCE(system_country, site_country) AS country,
         LEAST(quantities_rank, COALESCE(status_rank, quantities_rank),
               COALESCE(system_country_rank, LEAST(site_rank, site_country_rank), quantities_rank)) AS rank
  FROM counted
), per_country_system AS (
  SELECT country, system, ANY_VALUE(total) AS total, ANY_VALUE(rank) AS rank, ANY_VALUE(claim_count) AS claims
  FROM ranked GROUP BY country, system
)
SELECT country, SUM(total) AS accelerators, MIN(rank) AS weakest_rank,
       SUM(CASE WHEN rank = 3 THEN total ELSE 0 END) AS verified,
       SUM(CASE WHEN rank = 2 THEN total ELSE 0 END) AS reported,
       SUM(CASE WHEN rank = 1 THEN total ELSE 0 END) AS lead,
       COUNT(DISTINCT system) AS systems, SUM(claims) AS claims
FROM per_country_system GROUP BY country
ORDER BY accelerators DESC, country
