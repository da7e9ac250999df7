-- sdcaudit cell summaries (schema 1, docs/cells.md) for census.persons, dialect spark
-- dims age
WITH sdc_src AS (
  SELECT CASE WHEN CAST(`age` AS STRING) IN ('0-14')
      THEN CAST(raise_error('sdcaudit: a code in column age is a parent code of its hierarchy or not in its hierarchy file; records must carry the codes below') AS STRING)
      ELSE CAST(`age` AS STRING) END AS `age`
  FROM `census`.`persons`
),
sdc_a0 (sdc_code, sdc_lvl) AS (
  VALUES
    ('0-4', '0-14'),
    ('10-14', '0-14'),
    ('5-9', '0-14')
),
sdc_e0 AS (
  SELECT s.`age` AS `age`, 0 AS sdc_t0 FROM sdc_src s
  UNION ALL
  SELECT a.sdc_lvl AS `age`, 0 AS sdc_t0 FROM sdc_src s JOIN sdc_a0 a ON s.`age` = a.sdc_code
  UNION ALL
  SELECT CAST(NULL AS STRING) AS `age`, 1 AS sdc_t0 FROM sdc_src s
),
sdc_c1 AS (
  SELECT `age`,
    sdc_t0 * 1 AS sdc_gid,
    COUNT(*) AS sdc_rows,
    COUNT(*) AS sdc_mult
  FROM sdc_e0
  GROUP BY GROUPING SETS ((`age`, sdc_t0))
)
SELECT `age`,
  sdc_gid AS `grouping_id`,
  CAST(SUM(sdc_rows) AS BIGINT) AS `rows`,
  CAST(SUM(sdc_mult) AS BIGINT) AS `n`,
  CAST(0 AS BIGINT) AS `missing`,
  CAST(0 AS BIGINT) AS `negative`,
  '{"schema":1,"table":"census.persons","dims":["age"],"scale":0,"engine":"spark","hierarchies":["age"]}' AS `meta`
FROM sdc_c1
GROUP BY sdc_gid, `age`
ORDER BY 2, 1
