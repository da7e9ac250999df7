-- sdcaudit cell summaries (schema 1, docs/cells.md) for census.persons, dialect spark
-- dims region, sex
WITH sdc_src AS (
  SELECT `region`, `sex`
  FROM `census`.`persons`
),
sdc_c1 AS (
  SELECT `region`, `sex`,
    GROUPING(`region`) * 2 + GROUPING(`sex`) * 1 AS sdc_gid,
    COUNT(*) AS sdc_rows,
    COUNT(*) AS sdc_mult
  FROM sdc_src
  GROUP BY GROUPING SETS ((`region`, `sex`), (`region`), (`sex`), ())
)
SELECT `region`, `sex`,
  sdc_gid AS `grouping_id`,
  CAST(SUM(sdc_rows) AS BIGINT) AS `rows`,
  CAST(SUM(sdc_mult) AS BIGINT) AS `n`,
  CAST(0 AS BIGINT) AS `missing`,
  CAST(0 AS BIGINT) AS `negative`,
  '{"schema":1,"table":"census.persons","dims":["region","sex"],"scale":0,"engine":"spark"}' AS `meta`
FROM sdc_c1
GROUP BY sdc_gid, `region`, `sex`
ORDER BY 3, 1, 2
