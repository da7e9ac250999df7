-- sdcaudit cell summaries (schema 1, docs/cells.md) for register.enterprises, dialect postgres
-- dims region, nace, size; value turnover (scale 2); top 2; powers 1..4; holding enterprise_group
WITH sdc_src AS (
  SELECT CASE WHEN CAST("region" AS text) IN ('North', 'South') OR CAST("region" AS text) IS NULL OR CAST("region" AS text) NOT IN ('N1', 'N2', 'S1')
      THEN CAST(CAST(concat('sdcaudit: a code in column region is a parent code of its hierarchy or not in its hierarchy file; records must carry the codes below; the value: ', CAST("region" AS text), '') AS integer) AS text)
      ELSE CAST("region" AS text) END AS "region", CASE WHEN CAST("nace" AS text) IN ('BCD', 'C', 'F')
      THEN CAST(CAST(concat('sdcaudit: a code in column nace is a parent code of its hierarchy or not in its hierarchy file; records must carry the codes below; the value: ', CAST("nace" AS text), '') AS integer) AS text)
      ELSE CAST("nace" AS text) END AS "nace", "size",
    CASE WHEN "enterprise_group" IS NULL THEN CAST(CAST(concat('sdcaudit: a holding id in column enterprise_group is NULL; the value: ', CAST("enterprise_group" AS text), '') AS integer) AS text) ELSE CAST("enterprise_group" AS text) END AS sdc_h,
    CASE WHEN "turnover" IS NULL THEN NULL
      WHEN NOT (TRIM(CAST("turnover" AS text)) ~ '^[+-]?([0-9]+([.][0-9]{0,2}0*)?|[.][0-9]{1,2}0*)$')
      THEN CAST(CAST(concat('sdcaudit: a value in column turnover is not a decimal number with at most 2 decimals that fits DECIMAL(38, 2) (declare an exact numeric type, or set --value-decimals); the value: ', CAST("turnover" AS text), '') AS integer) AS NUMERIC(1000, 2))
      WHEN CAST(TRIM(CAST("turnover" AS text)) AS NUMERIC(1000, 2)) IS NULL
      THEN CAST(CAST(concat('sdcaudit: a value in column turnover is not a decimal number with at most 2 decimals that fits DECIMAL(38, 2) (declare an exact numeric type, or set --value-decimals); the value: ', CAST("turnover" AS text), '') AS integer) AS NUMERIC(1000, 2))
      ELSE CAST(TRIM(CAST("turnover" AS text)) AS NUMERIC(1000, 2)) END AS sdc_x
  FROM "register"."enterprises"
),
sdc_a0 (sdc_code, sdc_lvl) AS (
  VALUES
    ('N1', 'North'),
    ('N2', 'North'),
    ('S1', 'South')
),
sdc_e0 AS (
  SELECT s."region" AS "region", s."nace", s."size", s.sdc_h, s.sdc_x, 0 AS sdc_t0 FROM sdc_src s
  UNION ALL
  SELECT a.sdc_lvl AS "region", s."nace", s."size", s.sdc_h, s.sdc_x, 0 AS sdc_t0 FROM sdc_src s JOIN sdc_a0 a ON s."region" = a.sdc_code
  UNION ALL
  SELECT CAST(NULL AS text) AS "region", s."nace", s."size", s.sdc_h, s.sdc_x, 1 AS sdc_t0 FROM sdc_src s
),
sdc_a1 (sdc_code, sdc_lvl) AS (
  VALUES
    ('C', 'BCD'),
    ('C10', 'C'),
    ('C10', 'BCD'),
    ('C11', 'C'),
    ('C11', 'BCD'),
    ('D35', 'BCD'),
    ('F41', 'F')
),
sdc_e1 AS (
  SELECT s."region", s."nace" AS "nace", s."size", s.sdc_h, s.sdc_x, s.sdc_t0, 0 AS sdc_t1 FROM sdc_e0 s
  UNION ALL
  SELECT s."region", a.sdc_lvl AS "nace", s."size", s.sdc_h, s.sdc_x, s.sdc_t0, 0 AS sdc_t1 FROM sdc_e0 s JOIN sdc_a1 a ON s."nace" = a.sdc_code
  UNION ALL
  SELECT s."region", CAST(NULL AS text) AS "nace", s."size", s.sdc_h, s.sdc_x, s.sdc_t0, 1 AS sdc_t1 FROM sdc_e0 s
),
sdc_c1 AS (
  SELECT "region", "nace", "size",
    sdc_t0 * 4 + sdc_t1 * 2 + GROUPING("size") * 1 AS sdc_gid,
    COUNT(*) AS sdc_rows,
    COUNT(*) - COUNT(sdc_x) AS sdc_missing,
    SUM(sdc_x) AS sdc_cx,
    CASE WHEN COUNT(sdc_x) > 0 THEN 1 ELSE 0 END AS sdc_mult
  FROM sdc_e1
  GROUP BY GROUPING SETS (("region", sdc_t0, "nace", sdc_t1, "size", sdc_h), ("region", sdc_t0, "nace", sdc_t1, sdc_h))
),
sdc_c2 AS (
  SELECT sdc_c1.*,
    CAST(sdc_cx * 100 AS NUMERIC) AS sdc_m,
    LEAST(sdc_mult, GREATEST(2 - (SUM(sdc_mult) OVER (PARTITION BY sdc_gid, "region", "nace", "size" ORDER BY sdc_cx DESC NULLS LAST ROWS BETWEEN UNBOUNDED PRECEDING AND CURRENT ROW) - sdc_mult), 0)) AS sdc_take
  FROM sdc_c1
)
SELECT "region", "nace", "size",
  sdc_gid AS "grouping_id",
  CAST(SUM(sdc_rows) AS BIGINT) AS "rows",
  CAST(SUM(sdc_mult) AS BIGINT) AS "n",
  CAST(SUM(sdc_missing) AS BIGINT) AS "missing",
  CAST(SUM(CASE WHEN sdc_cx < 0 THEN sdc_mult ELSE 0 END) AS BIGINT) AS "negative",
  COALESCE(SUM(sdc_mult * sdc_cx), 0) AS "total",
  MIN(sdc_cx) AS "min",
  MAX(sdc_cx) AS "max",
  COALESCE(rtrim(string_agg(repeat(CAST(sdc_cx AS text) || ';', CAST(sdc_take AS integer)), '' ORDER BY sdc_cx DESC), ';'), '') AS "top",
  2 AS "scale",
  COALESCE(SUM(sdc_mult * sdc_m), 0) AS "sum_pow_1",
  COALESCE(SUM(sdc_mult * CAST(sdc_m * sdc_m AS NUMERIC)), 0) AS "sum_pow_2",
  COALESCE(SUM(sdc_mult * CAST(CAST(sdc_m * sdc_m AS NUMERIC) * sdc_m AS NUMERIC)), 0) AS "sum_pow_3",
  COALESCE(SUM(sdc_mult * CAST(CAST(CAST(sdc_m * sdc_m AS NUMERIC) * sdc_m AS NUMERIC) * sdc_m AS NUMERIC)), 0) AS "sum_pow_4",
  '{"schema":1,"table":"register.enterprises","dims":["region","nace","size"],"value":"turnover","holding":"enterprise_group","k":2,"powers":4,"scale":2,"engine":"postgres","hierarchies":["region","nace"]}' AS "meta"
FROM sdc_c2
GROUP BY sdc_gid, "region", "nace", "size"
ORDER BY 4, 1, 2, 3
