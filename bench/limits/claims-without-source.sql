-- Claims no source stands behind: citing nothing, or only the dataset whose row gives no source (a row per
-- such citation, as the canned query).
SELECT about, property, value, tier, why, claim FROM (
  SELECT claim, 'cites nothing' AS why FROM claims
  WHERE claim NOT IN (SELECT claim FROM claim_sources)
  UNION ALL
  SELECT claim, 'the dataset''s row gives no source' AS why FROM claims JOIN claim_sources USING (claim)
  WHERE basis = 'https://w3id.org/hpckg/vocab/basis/dataset-gives-no-source'
) JOIN claims USING (claim)
WHERE derived IS NULL
ORDER BY about, property
